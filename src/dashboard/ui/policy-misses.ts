// The canvas page's notice of what its live pages asked for that the runtime
// policy does not configure (GET …/capabilities `unconfigured`): "Your pages
// use the collection "poll", which the policy does not configure", with a
// button that opens the policy form at the right "Add" field, filled in.
import { byId } from './elements.ts';
import { button, when } from './ui.ts';

/** One name the live pages asked for that the policy does not configure (GET …/capabilities `unconfigured`). */
export interface PolicyMiss {
  kind: 'collection' | 'fileGroup';
  name: string;
  lastAt: number;
}

/** Each kind in words, and the policy form's fieldset (data-kind) it is added in. */
const WORDS: Record<PolicyMiss['kind'], { one: string; kind: string }> = {
  collection: { one: 'collection', kind: 'collections' },
  fileGroup: { one: 'file group', kind: 'fileGroups' },
};

/** Opens the policy form with `name` in the Add field of its kind; the person chooses who may do what, then saves. */
function configure(kind: PolicyMiss['kind'], name: string): void {
  byId('cp-policy-box', HTMLDetailsElement).open = true;
  const field = document.querySelector(`#cp-policy-form fieldset[data-kind="${WORDS[kind].kind}"] input[name="name"]`);
  if (!(field instanceof HTMLInputElement)) return;
  field.value = name;
  field.focus();
  field.scrollIntoView({ block: 'center' });
}

export function showPolicyMisses(misses: PolicyMiss[]): void {
  const box = byId('cp-unconfigured');
  const list = byId('cp-unconfigured-list');
  list.replaceChildren();
  box.hidden = misses.length === 0;
  for (const m of misses) {
    const li = document.createElement('li');
    const last = when(m.lastAt);
    li.append(`The ${WORDS[m.kind].one} "${m.name}" (last asked for ${last.text}) `);
    li.title = last.exact;
    li.append(button(`Configure "${m.name}"`, () => configure(m.kind, m.name)));
    list.append(li);
  }
}

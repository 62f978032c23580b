// The canvas page's notice of what its live pages asked for that the runtime
// policy does not configure (GET …/capabilities `unconfigured`): "Your pages
// use the collection "poll", which the policy does not configure", with a
// button that opens the policy form at the right "Add" field, filled in.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelUi } from './ui.ts';

export const easelPolicyMisses = (() => {
  const $ = (id) => document.getElementById(id);
  const WORDS = { collection: ['collection', 'collections'], fileGroup: ['file group', 'fileGroups'] };

  /** Opens the policy form with `name` in the Add field of its kind; the person chooses who may do what, then saves. */
  function configure(kind, name) {
    $('cp-policy-box').open = true;
    const input = document.querySelector(`#cp-policy-form fieldset[data-kind="${WORDS[kind][1]}"] input[name="name"]`);
    if (!input) return;
    input.value = name;
    input.focus();
    input.scrollIntoView({ block: 'center' });
  }

  return {
    show(misses) {
      const box = $('cp-unconfigured');
      const list = $('cp-unconfigured-list');
      list.replaceChildren();
      box.hidden = misses.length === 0;
      for (const m of misses) {
        const li = document.createElement('li');
        const when = easelUi.when(m.lastAt);
        li.append(`The ${WORDS[m.kind][0]} "${m.name}" (last asked for ${when.text}) `);
        li.title = when.exact;
        const b = easelUi.button(`Configure "${m.name}"`, () => configure(m.kind, m.name));
        li.append(b);
        list.append(li);
      }
    },
  };
})();

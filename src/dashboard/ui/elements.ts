// Typed look-ups of the dashboard page's elements: each checks at run time
// that the element is there and is what the code takes it for, so a renamed
// id in public/index.html fails loudly at the line that uses it instead of as
// "cannot read properties of null" later.

/** An element class (HTMLInputElement, SVGSVGElement, …) as a value, for instanceof. */
type ElementClass<T extends Element> = { new (): T; prototype: T };

/** The element with this id in the page, as `kind` (an HTMLElement when not given). */
export function byId(id: string): HTMLElement;
export function byId<T extends Element>(id: string, kind: ElementClass<T>): T;
export function byId(id: string, kind: ElementClass<Element> = HTMLElement): Element {
  const el = document.getElementById(id);
  if (!(el instanceof kind)) throw new Error(`#${id} is missing or not a ${kind.name}`);
  return el;
}

/** The first element under `root` matching `selector`, as `kind`. */
export function find<T extends Element>(root: ParentNode, selector: string, kind: ElementClass<T>): T {
  const el = root.querySelector(selector);
  if (!(el instanceof kind)) throw new Error(`${selector} is missing or not a ${kind.name}`);
  return el;
}

/** The control named `name` in `form` (form.elements), as `kind` (an <input> when not given). */
export function field(form: HTMLFormElement, name: string): HTMLInputElement;
export function field<T extends Element>(form: HTMLFormElement, name: string, kind: ElementClass<T>): T;
export function field(form: HTMLFormElement, name: string, kind: ElementClass<Element> = HTMLInputElement): Element {
  const el = form.elements.namedItem(name);
  if (!(el instanceof kind)) throw new Error(`${form.id || 'a form'} has no ${kind.name} named ${name}`);
  return el;
}

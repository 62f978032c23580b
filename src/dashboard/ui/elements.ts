// Typed look-ups of the dashboard page's elements for the canvas page's
// modules: each checks at run time that the element is there and is what the
// code takes it for, so a renamed id in public/index.html fails loudly at the
// line that uses it instead of as "cannot read properties of null" later.

/** An element class (HTMLInputElement, SVGSVGElement, …) as a value, for instanceof. */
type ElementClass<T extends Element> = { new (): T; prototype: T };

/** The element with this id in the page, as `type` (an HTMLElement when not given). */
export function byId(id: string): HTMLElement;
export function byId<T extends Element>(id: string, type: ElementClass<T>): T;
export function byId(id: string, type: ElementClass<Element> = HTMLElement): Element {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`#${id} is missing or not a ${type.name}`);
  return el;
}

/** The first element under `root` matching `selector`, as `type`. */
export function inside<T extends Element>(root: ParentNode, selector: string, type: ElementClass<T>): T {
  const el = root.querySelector(selector);
  if (!(el instanceof type)) throw new Error(`${selector} is missing or not a ${type.name}`);
  return el;
}

/** The control named `name` in `form` (form.elements), as `type`. */
export function control<T extends Element>(form: HTMLFormElement, name: string, type: ElementClass<T>): T {
  const el = form.elements.namedItem(name);
  if (!(el instanceof type)) throw new Error(`${form.id || 'a form'} has no ${type.name} named ${name}`);
  return el;
}

/** A form's text field (<input> or <textarea>) by name. */
export const input = (form: HTMLFormElement, name: string): HTMLInputElement => control(form, name, HTMLInputElement);

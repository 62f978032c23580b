// The editor's colours: its surface, gutter and active line, and the syntax, as the dashboard's --syn-* custom properties
// (public/style.css: a light and a dark set, each AA on its own background;
// they reach the editor's shadow root by inheritance). CodeMirror's default
// style falls under WCAG AA on the active line (tag names #085 on #f1faff are
// 4.26:1; regexps #e40 and invalid #f00 under 4:1 on white).
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import { EditorView } from '@codemirror/view';

const style = HighlightStyle.define([
  { tag: t.meta, color: 'var(--syn-meta)' },
  { tag: t.link, textDecoration: 'underline' },
  { tag: t.heading, textDecoration: 'underline', fontWeight: 'bold' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strong, fontWeight: 'bold' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: t.keyword, color: 'var(--syn-keyword)' },
  { tag: [t.atom, t.bool, t.url, t.contentSeparator, t.labelName], color: 'var(--syn-atom)' },
  { tag: [t.literal, t.inserted], color: 'var(--syn-literal)' },
  { tag: [t.string, t.deleted], color: 'var(--syn-string)' },
  { tag: [t.regexp, t.escape, t.special(t.string)], color: 'var(--syn-regexp)' },
  { tag: t.definition(t.variableName), color: 'var(--syn-definition)' },
  { tag: t.local(t.variableName), color: 'var(--syn-local)' },
  { tag: [t.typeName, t.namespace, t.tagName], color: 'var(--syn-tag)' },
  { tag: t.className, color: 'var(--syn-class)' },
  { tag: [t.special(t.variableName), t.macroName], color: 'var(--syn-special)' },
  { tag: t.definition(t.propertyName), color: 'var(--syn-definition)' },
  { tag: t.attributeName, color: 'var(--syn-definition)' },
  { tag: t.comment, color: 'var(--syn-comment)' },
  { tag: t.invalid, color: 'var(--syn-invalid)' },
]);

const surface = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--bg)' },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '.cm-gutters': { color: 'var(--muted)', backgroundColor: 'var(--surface)', borderColor: 'var(--line)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--accent-bg)' },
  '.cm-activeLineGutter': { color: 'var(--text)' },
});

/** The syntax style takes precedence over basicSetup's fallback style. */
export const editorColours = [surface, syntaxHighlighting(style)];

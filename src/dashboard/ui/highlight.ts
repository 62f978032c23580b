// The editor's syntax colours. CodeMirror's default style falls under WCAG AA
// on the active line (tag names #085 on #f1faff are 4.26:1; regexps #e40 and
// invalid #f00 under 4:1 on white); every colour here is at least 4.5:1 on
// white and on the active line's tint.
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

const style = HighlightStyle.define([
  { tag: t.meta, color: '#404740' },
  { tag: t.link, textDecoration: 'underline' },
  { tag: t.heading, textDecoration: 'underline', fontWeight: 'bold' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strong, fontWeight: 'bold' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: t.keyword, color: '#770088' },
  { tag: [t.atom, t.bool, t.url, t.contentSeparator, t.labelName], color: '#221199' },
  { tag: [t.literal, t.inserted], color: '#116644' },
  { tag: [t.string, t.deleted], color: '#aa1111' },
  { tag: [t.regexp, t.escape, t.special(t.string)], color: '#b03000' },
  { tag: t.definition(t.variableName), color: '#0000cc' },
  { tag: t.local(t.variableName), color: '#1a4f80' },
  { tag: [t.typeName, t.namespace, t.tagName], color: '#006644' },
  { tag: t.className, color: '#135c4a' },
  { tag: [t.special(t.variableName), t.macroName], color: '#1d5270' },
  { tag: t.definition(t.propertyName), color: '#0000cc' },
  { tag: t.attributeName, color: '#0000cc' },
  { tag: t.comment, color: '#7a4a00' },
  { tag: t.invalid, color: '#b00020' },
]);

/** Takes precedence over basicSetup's fallback style. */
export const accessibleHighlighting = syntaxHighlighting(style);

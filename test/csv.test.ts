// RFC 4180 cells, and formulas a spreadsheet would run shown as text (src/canvas-data/csv.ts).
import { expect, test } from 'bun:test';
import { csvCell, csvRow } from '../src/canvas-data/csv.ts';

test('cells are quoted only when they must be, quotes doubled', () => {
  expect(csvCell('plain')).toBe('plain');
  expect(csvCell('a,b')).toBe('"a,b"');
  expect(csvCell('say "hi"')).toBe('"say ""hi"""');
  expect(csvCell('two\nlines')).toBe('"two\nlines"');
  expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
  expect(csvCell('')).toBe('');
  expect(csvRow(['a', 'b,c', ''])).toBe('a,"b,c",\r\n');
});

test('a cell starting like a formula is prefixed with an apostrophe', () => {
  for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvCell(`${start}1+1`).replace(/^"/, '')).toStartWith(`'${start}`);
  expect(csvCell('=SUM(A1:A2)')).toBe("'=SUM(A1:A2)");
  expect(csvCell('-2')).toBe("'-2");
  expect(csvCell('@cmd,x')).toBe(`"'@cmd,x"`);
  expect(csvCell('a=b')).toBe('a=b');
});

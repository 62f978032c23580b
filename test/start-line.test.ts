// When the start line adds the public URL (src/start-line.ts).
import { expect, test } from 'bun:test';
import { publicUrlIfDifferent } from '../src/start-line.ts';

test('the public URL is named only when people reach the server somewhere else', () => {
  expect(publicUrlIfDifferent('http://127.0.0.1:8080', 'http://localhost:8080')).toBeNull();
  expect(publicUrlIfDifferent('http://[::1]:8080', 'http://localhost:8080')).toBeNull();
  expect(publicUrlIfDifferent('http://127.0.0.1:8080', 'http://127.0.0.1:8080')).toBeNull();
  expect(publicUrlIfDifferent('http://127.0.0.1:8081', 'http://127.0.0.1:31900')).toBe('http://127.0.0.1:31900');
  expect(publicUrlIfDifferent('http://0.0.0.0:8080', 'http://localhost:8080')).toBe('http://localhost:8080');
  expect(publicUrlIfDifferent('http://0.0.0.0:8080', 'https://easel.acme.internal/')).toBe('https://easel.acme.internal');
  expect(publicUrlIfDifferent('http://127.0.0.1:443', 'https://127.0.0.1')).toBe('https://127.0.0.1');
});

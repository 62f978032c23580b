// The one reading of a request URL's path and query (src/http/url-path.ts).
import { expect, test } from 'bun:test';
import { authorityOf, pathStartOf, splitUrl, urlPath } from '../src/http/url-path.ts';

test('path and query of absolute request URLs, still encoded', () => {
  const cases: Array<[string, string, string]> = [
    ['http://localhost/c/poll/index.html', '/c/poll/index.html', ''],
    ['http://localhost:8080/v1/c/poll/kv/a%2Fb?prefix=x', '/v1/c/poll/kv/a%2Fb', '?prefix=x'],
    // `//` and `/` inside the query belong to the query.
    ['https://easel.test/api/x?next=https://other.test/a//b', '/api/x', '?next=https://other.test/a//b'],
    // A doubled slash in the path stays in the path.
    ['http://h//double//path', '//double//path', ''],
    ['http://h', '/', ''],
    ['http://h/', '/', ''],
    ['http://h?x=/y', '/', '?x=/y'],
    ['http://h/?', '/', '?'],
    ['http://[::1]:9/a?b', '/a', '?b'],
    ['http://user@h/a', '/a', ''],
  ];
  for (const [url, path, query] of cases) {
    expect({ url, ...splitUrl(url) }).toEqual({ url, path, query });
    expect(urlPath(url)).toBe(path);
  }
});

test('the path start is an index into the URL itself', () => {
  const url = 'http://localhost:8080/sdk/v1.js?x';
  expect(url.slice(pathStartOf(url))).toBe('/sdk/v1.js?x');
  expect(pathStartOf('http://h')).toBe('http://h'.length);
  expect(pathStartOf('http://h?q')).toBe('http://h'.length);
});

test('the authority, with its port', () => {
  expect(authorityOf('http://poll.canvas.test:8080/a?b')).toBe('poll.canvas.test:8080');
  expect(authorityOf('http://[::1]:9?q')).toBe('[::1]:9');
  expect(authorityOf('https://h')).toBe('h');
});

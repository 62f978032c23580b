import { Type } from '@sinclair/typebox';
import { epochMs } from '../http/epoch-ms.ts';

/** POST /auth/dev/login (dev sign-in only). */
export const DevLoginBody = Type.Object(
  { email: Type.String({ maxLength: 320 }), name: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);

/** GET /auth/login's query, whichever mode answers it. */
export const LoginQuery = Type.Object({ returnTo: Type.Optional(Type.String({ description: 'where to go after signing in' })) });

/** Who signed in (dev sign-in, the CLI's token exchange). */
export const SignedInUser = Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() });

/** POST /auth/logout: where the provider's own session ends, when it offers a way. */
export const LogoutAnswer = Type.Object({
  ok: Type.Literal(true),
  endSessionUrl: Type.Optional(Type.String({ description: "the provider's end-session page: the dashboard goes there next" })),
});

/** POST /auth/cli/token: the CLI trades its one-time code and PKCE verifier. */
export const CliExchangeBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 200 }),
  verifier: Type.String({ minLength: 43, maxLength: 128 }),
});

export const CliTokenAnswer = Type.Object({ token: Type.String(), tokenId: Type.String(), user: SignedInUser });

const TOKEN_NAME_MAX = 100;
export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: TOKEN_NAME_MAX }),
    expiresAt: Type.Optional(Type.Union([epochMs(), Type.Null()])),
  },
  { additionalProperties: false },
);

const Expiry = Type.Union([Type.Integer({ description: 'epoch milliseconds' }), Type.Null()]);

/** POST /api/tokens: the token, shown this once. */
export const TokenCreated = Type.Object({
  id: Type.String(),
  name: Type.String(),
  token: Type.String({ description: 'easel_pat_…: shown this once' }),
  createdAt: Type.Integer(),
  expiresAt: Expiry,
});

/** A token as listed: never its secret (tokens.ts TokenView). */
export const TokenView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Type.Integer(),
  expiresAt: Expiry,
  lastUsedAt: Type.Union([Type.Integer(), Type.Null()]),
});

export const TokenList = Type.Object({ tokens: Type.Array(TokenView) });

import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'apt_';

/** A new opaque token: the prefix and 256 random bits, base64url. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** What is stored and looked up: the hex SHA-256 of the token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

import type { UserRole } from '../../auth/entities/user.entity';

/** The authenticated caller, attached to the request by the bearer guard. */
export interface AuthUser {
  id: number;
  email: string;
  role: UserRole;
  teamId: number;
  tokenId: number;
}

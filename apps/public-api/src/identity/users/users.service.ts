import { isEmail } from 'class-validator';
import { BadRequestError, ConflictError } from '@docflow/service-kit';
import { hashPassword, PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from './password';
import { isUserRole, UserRole } from './user-role';
import type { UserEntity } from './user.entity';
import type { UsersRepository } from './users.repository';

export interface PublicUser {
  id: number;
  username: string;
  email: string;
}

export interface NewUser {
  username: string;
  email: string;
  password: string;
  role: UserRole;
}

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{2,49}$/;

export function toPublicUser(user: Pick<UserEntity, 'id' | 'username' | 'email'>): PublicUser {
  return { id: user.id, username: user.username, email: user.email };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Every problem with a new account, as readable strings (empty when it is fine). */
export function newUserProblems(input: NewUser): string[] {
  const errors: string[] = [];
  if (!USERNAME_PATTERN.test(input.username)) {
    errors.push('username must be 3 to 50 characters: letters, digits, dot, dash or underscore, starting with a letter or digit');
  }
  const email = normalizeEmail(input.email);
  if (email.length > 254 || !isEmail(email)) errors.push('email must be a valid email address');
  if (input.password.length < PASSWORD_MIN_LENGTH) errors.push(`password must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (Buffer.byteLength(input.password, 'utf8') > PASSWORD_MAX_BYTES) errors.push(`password must be at most ${PASSWORD_MAX_BYTES} bytes`);
  if (!isUserRole(input.role)) errors.push('role must be super_admin or user');
  return errors;
}

function conflictError(field: 'email' | 'username'): ConflictError {
  return new ConflictError(`A user with this ${field} already exists`, { field });
}

export class UsersService {
  constructor(private readonly repo: UsersRepository) {}

  findById(id: number): Promise<UserEntity | null> {
    return this.repo.findById(id);
  }

  findByIdentifier(identifier: string): Promise<UserEntity | null> {
    return this.repo.findByIdentifier(identifier.trim());
  }

  /** Creates an account; 400 with details.errors when invalid, 409 when the email or username is taken. */
  async create(input: NewUser): Promise<UserEntity> {
    const errors = newUserProblems(input);
    if (errors.length) throw BadRequestError.withErrors('Invalid user', errors);
    const email = normalizeEmail(input.email);
    const taken = await this.repo.findConflict(email, input.username);
    if (taken) throw conflictError(taken);
    const result = await this.repo.insert({ username: input.username, email, passwordHash: await hashPassword(input.password), role: input.role });
    if (!result.ok) throw conflictError(result.conflict);
    return result.user;
  }

  /**
   * Creates the account unless its email or username already exists; an
   * existing account is never changed (used by seeding, safe with replicas).
   */
  async createIfMissing(input: NewUser): Promise<{ created: boolean }> {
    try {
      await this.create(input);
      return { created: true };
    } catch (err) {
      if (err instanceof ConflictError) return { created: false };
      throw err;
    }
  }
}

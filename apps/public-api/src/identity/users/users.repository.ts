import { DataSource } from 'typeorm';
import { uniqueViolation } from '@docflow/persistence';
import type { UserRole } from './user-role';
import { UserEntity } from './user.entity';

export interface NewUserRow {
  username: string;
  /** Lower-cased by the caller. */
  email: string;
  passwordHash: string;
  role: UserRole;
}

export type InsertUserResult = { ok: true; user: UserEntity } | { ok: false; conflict: 'email' | 'username' };

/** Unique indexes created by the users migration; a violation of one names the field that clashes. */
export const USERS_EMAIL_INDEX = 'users_email_key';
export const USERS_USERNAME_INDEX = 'users_username_lower_key';

export class UsersRepository {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(UserEntity);
  }

  findById(id: number): Promise<UserEntity | null> {
    return this.repo.findOneBy({ id });
  }

  /** The user whose email or username equals `identifier`, ignoring case. */
  findByIdentifier(identifier: string): Promise<UserEntity | null> {
    return this.repo.createQueryBuilder('u').where('u.email = lower(:identifier) OR lower(u.username) = lower(:identifier)', { identifier }).orderBy('u.id', 'ASC').getOne();
  }

  /** Which of email (lower-cased) or username (any case) is already taken, if any. */
  async findConflict(email: string, username: string): Promise<'email' | 'username' | undefined> {
    const rows = await this.repo.createQueryBuilder('u').select(['u.email', 'u.username']).where('u.email = :email OR lower(u.username) = lower(:username)', { email, username }).getMany();
    if (rows.some((r) => r.email === email)) return 'email';
    return rows.length ? 'username' : undefined;
  }

  async insert(row: NewUserRow): Promise<InsertUserResult> {
    try {
      const user = await this.repo.save(this.repo.create({ ...row, blocked: false }));
      return { ok: true, user };
    } catch (err) {
      const constraint = uniqueViolation(err);
      if (constraint === undefined) throw err;
      return { ok: false, conflict: constraint === USERS_USERNAME_INDEX ? 'username' : 'email' };
    }
  }
}

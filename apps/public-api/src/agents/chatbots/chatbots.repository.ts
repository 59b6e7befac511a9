import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { PublicApiDatabase } from '../../platform';
import { slugTakenOr } from '../../platform';
import { ChatbotEntity } from './chatbot.entity';

export type NewChatbotRow = Omit<ChatbotEntity, 'id' | 'createdAt' | 'updatedAt'>;
export type ChatbotRowChanges = Partial<Omit<NewChatbotRow, 'ownerId' | 'queryCount'>>;

/** `slug_taken` when the unique slug is in use. */
export class ChatbotsRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get repo() {
    return this.database.getRepository(ChatbotEntity);
  }

  listOwned(ownerId: number): Promise<ChatbotEntity[]> {
    return this.repo.find({ where: { ownerId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findOwned(id: number, ownerId: number): Promise<ChatbotEntity | null> {
    return this.repo.findOneBy({ id, ownerId });
  }

  findBySlug(slug: string): Promise<ChatbotEntity | null> {
    return this.repo.findOneBy({ slug });
  }

  insert(row: NewChatbotRow): Promise<ChatbotEntity | 'slug_taken'> {
    return slugTakenOr(() => this.repo.save(this.repo.create(row)));
  }

  /** The updated chatbot, null when the owner has none with this id. */
  async update(id: number, ownerId: number, changes: ChatbotRowChanges): Promise<ChatbotEntity | null | 'slug_taken'> {
    const result = await slugTakenOr(() => this.repo.update({ id, ownerId }, changes as QueryDeepPartialEntity<ChatbotEntity>));
    if (result === 'slug_taken') return result;
    return result.affected ? this.findOwned(id, ownerId) : null;
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    return ((await this.repo.delete({ id, ownerId })).affected ?? 0) > 0;
  }

  async countQuery(id: number): Promise<void> {
    await this.database.query('UPDATE chatbots SET query_count = query_count + 1 WHERE id = $1', [id]);
  }
}

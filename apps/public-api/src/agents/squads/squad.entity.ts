import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export interface SquadMember {
  agent_slug: string;
  role: string | null;
}

export interface SquadTask {
  id: string;
  description: string;
  agent_slug: string;
  depends_on: string[];
  output_key: string;
  expected_output: string | null;
}

@Entity({ name: 'squads' })
export class SquadEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  slug!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'varchar', length: 20 })
  process!: 'sequential' | 'hierarchical';

  @Column({ name: 'manager_agent_id', type: 'integer', nullable: true })
  managerAgentId!: number | null;

  @Column({ type: 'jsonb' })
  agents!: SquadMember[];

  @Column({ type: 'jsonb' })
  tasks!: SquadTask[];

  @Column({ name: 'max_total_iterations', type: 'integer' })
  maxTotalIterations!: number;

  @Column({ type: 'boolean' })
  active!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

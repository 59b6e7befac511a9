import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of POST /agent-conversations/{sessionId}/human-reply: what the owner answers as a person. */
export class HumanReplyBody {
  @MaxLength(100_000)
  @IsNotEmpty()
  @IsString()
  content!: string;
}

import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';

export class LoginBody {
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  identifier!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password!: string;
}

export class StepUpVerifyBody {
  @Matches(/^\d{6}$/, { message: 'code must be a string of 6 digits' })
  code!: string;
}

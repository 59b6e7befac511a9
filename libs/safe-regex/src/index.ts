export { compileUserRegex, userRegexProblem, UserRegexError, DEFAULT_MAX_PATTERN_LENGTH, DEFAULT_MAX_PROGRAM_SIZE, type UserRegex, type UserRegexLimits } from './user-regex';

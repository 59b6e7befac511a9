import { createHmac } from 'node:crypto';
import { safeEqual } from './internal-auth';

const DOMAIN = 'docflow.job-user.v1';

/**
 * The user a job acts for, bound to the job by the platform (spec 4.16, 5).
 *
 * The public API signs `(job id, user id)` with INTERNAL_SERVICE_JWT_SECRET,
 * which the processors also hold and the router does not need: a job whose
 * `user_id` does not carry this signature acts for nobody. Nothing a workflow
 * author writes (node ids, outputs, inputs, node bodies) can name another
 * user, since the processors take the user from the verified job alone.
 */
export function signJobUser(secret: string, jobId: string, userId: number): string {
  return createHmac('sha256', secret).update(`${DOMAIN}\n${jobId}\n${userId}`).digest('base64url');
}

/** Whether `signature` is the platform's signature of `(jobId, userId)`; constant time. */
export function verifyJobUser(secret: string, jobId: string, userId: number, signature: string | undefined): boolean {
  if (typeof signature !== 'string' || signature.length === 0) return false;
  return safeEqual(signature, signJobUser(secret, jobId, userId));
}

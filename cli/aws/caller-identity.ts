import { hostname, userInfo } from 'node:os';
import { clientBase } from './connection.ts';

/** `user@host` of the person at this terminal. */
export function localOperator(env: NodeJS.ProcessEnv = process.env): string {
  let user = env.USER ?? env.USERNAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `${user}@${hostname()}`;
}

/**
 * Who is operating, for the ledger's record of pauses, resumes, backfills and discards.
 *
 * Against AWS: the caller's ARN from STS `GetCallerIdentity` (which needs no permission), e.g.
 * `arn:aws:sts::123456789012:assumed-role/oncall/alice`. Against the sandbox or any endpoint
 * override (`local`), or when STS cannot be reached: `user@host` from the environment.
 *
 * @example
 * await callerIdentity({ local: true, region: undefined }) //=> 'alice@laptop'
 */
export async function callerIdentity(
  connection: { readonly local: boolean; readonly region: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (connection.local) return localOperator(env);
  const { STSClient, GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
  const sts = new STSClient(clientBase(connection.region));
  try {
    const out = await sts.send(new GetCallerIdentityCommand({}));
    return out.Arn ?? localOperator(env);
  } catch {
    return `${localOperator(env)} (STS GetCallerIdentity failed)`;
  } finally {
    sts.destroy();
  }
}

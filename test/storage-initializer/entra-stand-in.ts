/**
 * An Entra ID (AAD) stand-in on loopback for @azure/identity's service principal and
 * workload identity sign-ins (AZURE_AUTHORITY_HOST): OpenID metadata and a
 * client-credentials token endpoint that checks the client id and either the secret or the
 * federated token (JWT-bearer assertion). HTTPS only, as MSAL requires. Tokens are
 * unsigned-looking JWTs with the storage audience; `issued` holds every one handed out, so
 * a store stand-in can check that a bearer token is one of them.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Pki } from './helpers.js';

export interface EntraOptions {
  tenant: string;
  client: string;
  secret: string;
  /** The federated (service account) token accepted as a client assertion. */
  federated: string;
}

export interface EntraStandIn {
  authority: string;
  /** Form bodies of every token request, in order. */
  tokenRequests: string[];
  issued: Set<string>;
  stop(): Promise<void>;
}

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

export async function startEntra(pki: Pki, o: EntraOptions): Promise<EntraStandIn> {
  let authority = '';
  const tokenRequests: string[] = [];
  const issued = new Set<string>();
  const aad = https.createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    const url = new URL(req.url ?? '/', authority);
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const json = (status: number, v: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (url.pathname === `/${o.tenant}/v2.0/.well-known/openid-configuration`) {
        json(200, {
          issuer: `${authority}/${o.tenant}/v2.0`,
          token_endpoint: `${authority}/${o.tenant}/oauth2/v2.0/token`,
          authorization_endpoint: `${authority}/${o.tenant}/oauth2/v2.0/authorize`,
          end_session_endpoint: `${authority}/${o.tenant}/oauth2/v2.0/logout`,
          jwks_uri: `${authority}/${o.tenant}/discovery/v2.0/keys`,
        });
        return;
      }
      if (url.pathname === `/${o.tenant}/oauth2/v2.0/token` && req.method === 'POST') {
        tokenRequests.push(body);
        const form = new URLSearchParams(body);
        const assertion = form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' && form.get('client_assertion') === o.federated;
        if (form.get('client_id') !== o.client || (form.get('client_secret') !== o.secret && !assertion) || form.get('grant_type') !== 'client_credentials') {
          json(401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' });
          return;
        }
        const now = Math.floor(Date.now() / 1000);
        const jwt = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url({ aud: 'https://storage.azure.com', iss: `https://sts.windows.net/${o.tenant}/`, iat: now - 60, nbf: now - 60, exp: now + 3600, appid: o.client, tid: o.tenant, oid: '00000000-0000-0000-0000-000000000001' })}.c2lnbmF0dXJl`;
        issued.add(jwt);
        json(200, { token_type: 'Bearer', expires_in: 3600, ext_expires_in: 3600, access_token: jwt });
        return;
      }
      json(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => aad.listen(0, '127.0.0.1', r));
  authority = `https://127.0.0.1:${(aad.address() as AddressInfo).port}`;
  return { authority, tokenRequests, issued, stop: () => new Promise((r) => aad.close(() => r())) };
}

/** POST /plants under `baseUrl` with `token` as the bearer token, `body` as JSON (text and bytes as they are). */
export const postPlant = (
  baseUrl: string,
  /** None sends no Authorization header. */
  token: string | undefined,
  body: unknown,
  /** Over the Authorization and Content-Type set here. */
  headers: Record<string, string> = {},
) =>
  fetch(`${baseUrl}/plants`, {
    method: 'POST',
    headers: {
      ...(token !== undefined && { Authorization: `Bearer ${token}` }),
      'Content-Type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' || body instanceof Buffer ? body : JSON.stringify(body),
  });

export interface paths {
    "/plants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a plant
         * @description Stores a new plant and returns it. Requires the `plants/write` scope (unless the deployment checks no scopes: docs/configuration.md).
         */
        post: operations["createPlant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Plant: {
            /** @description The name of the plant */
            name: string;
            /** @description Tag that specifies the type of the plant */
            tag?: string;
        };
        NewPlant: components["schemas"]["Plant"] & {
            /**
             * Format: int64
             * @description Identification number of the plant
             */
            id: bigint;
        };
        Error: {
            /**
             * Format: int32
             * @description Numeric error value; equals the HTTP status.
             */
            error: number;
            /** @description Error message text */
            message: string;
        };
    };
    responses: {
        /** @description The `Authorization` header is missing, is not `Bearer <token>`, or the token is not an access token (an ID token, or a JWT typed as another kind) or not valid: not three parts of canonical base64url (no padding), no `kid` in its header or one the issuer does not publish, an algorithm the deployment does not allow (RS256 and ES256 by default) or one that does not fit the key, a bad signature (of the wrong length too), wrong issuer or audience, expired, not yet valid, issued in the future, signed with a key weaker than 2048-bit RSA, or a `sub` that is not a string of 1 to 255 characters. */
        Unauthorized: {
            headers: {
                /** @description `Bearer realm="Plant Store"` (RFC 6750 section 3). The same for a missing and a refused token: API Gateway's gateway responses carry static headers only. */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The token is valid but does not carry the scopes the operation's `security` lists. The message names, of the scopes this API's operations need, those the token lacks. */
        Forbidden: {
            headers: {
                /** @description `Bearer realm="Plant Store", error="insufficient_scope", scope="plants/write"` (RFC 6750 section 3.1): the scope every operation of this API needs. An API whose operations need different scopes names none here (a gateway response is one for the whole API). */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request rate is over the deployment's throttling limit. */
        TooManyRequests: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createPlant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The plant to add to the store. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": 1,
                 *       "name": "Monstera deliciosa",
                 *       "tag": "aroid"
                 *     }
                 */
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description plant response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description unexpected error: the body is not UTF-8, not JSON, nested deeper than 64 levels, not an object, has a key that could pollute prototypes (`__proto__`, `constructor.prototype`), or violates NewPlant. The message names the field and the rule, e.g. `id: must be an integer in the int64 range`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description A plant with this `id` is already stored with another `name` or `tag`. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than the limit (64 KiB by default). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Content-Type` is not `application/json` (or another `+json` media type), or its `charset` is not `utf-8`. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            /** @description An unexpected failure, or the token issuer's keys could not be had (refused, an HTTP error, not a JWKS, or no answer within 1.5 seconds, twice): a valid token is never called invalid for it. The message is generic (`Internal server error`) and never shows internals. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unavailable or throttling, or the function could not be invoked. Retry after the number of seconds in `Retry-After`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error the API gateway answers itself: 502 when the function fails or answers malformed (a 504 for API Gateway's 29-second integration time-out cannot happen: the function's 10-second timeout ends first); the local runner also answers 400 for malformed HTTP and 431 when the request line and header values exceed API Gateway's 10,240-byte quota. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}

import { Webhook, WebhookVerificationError } from "standardwebhooks";

/**
 * Verifies a webhook delivery per the Standard Webhooks convention: `webhook-signature` is
 * `v1,<base64 HMAC-SHA256>` with the endpoint's secret (`whsec_…`) over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`; a timestamp more than 5 minutes off is refused.
 * Pass the body exactly as received (re-serialized JSON does not verify). Returns the parsed event.
 * Receivers should dedupe on `webhook-id`: a redelivery carries the same id.
 */
export function verifyWebhook<T = unknown>(
  secret: string,
  rawBody: string | Buffer,
  headers: Headers | Record<string, string | string[] | undefined>,
): T {
  const get = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? "";
  };
  return new Webhook(secret).verify(rawBody, {
    "webhook-id": get("webhook-id"),
    "webhook-timestamp": get("webhook-timestamp"),
    "webhook-signature": get("webhook-signature"),
  }) as T;
}

export { WebhookVerificationError };

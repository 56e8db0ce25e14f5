import pino, { type Logger } from "pino";

/**
 * JSON logs on stdout. Secret-bearing fields are redacted wherever they appear, as a backstop:
 * the code never logs headers or secrets to begin with.
 */
export const REDACTED_PATHS = [
  "secret",
  "*.secret",
  "signingSecret",
  "*.signingSecret",
  "masterKey",
  "*.masterKey",
  "headers.authorization",
  "headers['x-svc-signature']",
  "*.headers.authorization",
  "*.headers['x-svc-signature']",
  "databaseUrl",
  "*.databaseUrl",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "veriflow-relayer" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

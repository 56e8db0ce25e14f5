-- Platform tables: API keys, replay protection, rate limits, settings.

CREATE TABLE api_keys (
  id                  text PRIMARY KEY,            -- internal id (key_...)
  key                 text NOT NULL UNIQUE,        -- the public API key sent in X-SVC-Key
  tier                text NOT NULL,
  label               text NOT NULL DEFAULT '',
  secret_enc          text NOT NULL,               -- AES-256-GCM blob (relayer/auth/secrets.ts)
  previous_secret_enc text,                        -- the secret being rotated out
  previous_expires_at timestamptz,                 -- when the rotated-out secret stops working
  source              text NOT NULL DEFAULT 'cli', -- cli | bootstrap | dev
  created_at          timestamptz NOT NULL DEFAULT now(),
  rotated_at          timestamptz,
  revoked_at          timestamptz
);

-- Signatures accepted within the timestamp window; a second use is a replay.
CREATE TABLE auth_replay (
  key_id     text NOT NULL,
  signature  text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (key_id, signature)
);
CREATE INDEX auth_replay_expires_at ON auth_replay (expires_at);

-- Fixed one-minute windows per key: count of accepted requests.
CREATE TABLE rate_limit_counters (
  key_id       text NOT NULL,
  window_start bigint NOT NULL, -- epoch ms of the window's first millisecond
  count        integer NOT NULL,
  PRIMARY KEY (key_id, window_start)
);

CREATE TABLE platform_settings (
  name  text PRIMARY KEY,
  value text NOT NULL
);

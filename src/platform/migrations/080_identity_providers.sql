-- Each tenant's OpenID Connect provider (docs/security.md, "User tokens"): platform configuration
-- registered by the platform admin, like api_keys, not domain history. One provider per tenant;
-- an issuer names one tenant only, since a token's verified `iss` decides its tenant.
CREATE TABLE IF NOT EXISTS identity_providers (
  tenant_id uuid PRIMARY KEY REFERENCES tenants (id),
  issuer text NOT NULL UNIQUE,
  jwks_uri text NOT NULL,
  audience text NOT NULL,
  roles_claim text NOT NULL DEFAULT 'roles',
  scope_claim text NOT NULL DEFAULT 'scope',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

"""Secret values pasted into ordinary documents (a notes file with an API key, a private key in a README) are masked
before chunking: nothing of them reaches the manifest, the BM25 index or LanceDB, nor a query's chunks, while the
rest of the file is indexed and cited at its own lines. Real tantivy, LanceDB and the offline MiniLM."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from offline_index import offline_toml
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import offline_model_dir
from ragls.sources.redact import mask_secrets
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

OPENAI = "sk-proj-Q7vK2mN9xR4tL8wE1aZ5cB3dF6gH0jYp"
GITHUB = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
DB_PASSWORD = "v8Jq2LxW9pRt4Zk"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
# issue 25: a JWT in an Authorization header, another bearer token, URL credentials, npm and PyPI tokens, a short
# password
JWT_PAYLOAD = "eyJzdWIiOiJkZXBsb3ktYm90Iiwicm9sZSI6ImFkbWluIn0"
JWT = f"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{JWT_PAYLOAD}.Qm9ndXNTaWduYXR1cmVGb3JUZXN0czEyMzQ"
BEARER = "c2b7e91f04d3a8f6b5e2"
URL_PASSWORD = "Xq9vL2pTr7wK"
NPM = "npm_Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2"
PYPI = "pypi-AgEIcHlwaS5vcmcCJGE3ZjFiOTJmLTk4ZjQtNDNmMi1hYzI1LTBmMmYyZTkyN2NjYwACKlszLCI5ZjNiYTVjNSJdAAAGIMZz"
SHORT_PASSWORD = "hunt3r"
# gitleaks' shapes the masker once missed: a PGP private key block, an Azure storage key, a Slack webhook path
PGP_BODY = "lQOYBGXk2aIBCADq7Vb9Zt3mQ1"
AZURE_KEY = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg=="
WEBHOOK_PATH = "T0A1B2C3D/B0A1B2C3D/q1w2e3r4t5y6u7i8o9p0a1s2"
# .netrc entries, curl -u/--user, Stripe test and restricted keys, *_PASS assignments
NETRC_PASSWORD, NETRC_PASSWORD2 = "Vt7qN3wzLp", "m4rbleSky"
CURL_PASSWORD, CURL_PASSWORD2 = "Kp8xZr2Wq", "s3cretive"
STRIPE_TEST = "sk_test_51HqLzG2eZvKYlo2C8x7Qm4Rt"
STRIPE_RESTRICTED = "rk_live_51HqLzG2eZvKYlo2C9y8Wn5Su"
DB_PASS, POSTGRES_PASSWORD = "pg_Ld93kq", "Wq7ePostgr3s"
SMTP_PASS = "Mx7rQ2ws"  # a PASS word in a YAML key, a dotted or a camelCase name
PROSE_PASSWORD, QUOTED_PASSWORD, WIFI_PASSWORD = "hunter2x9", "Tr0ub4dor&3", "CoffeeShop2024"  # stated in prose
PASSPHRASE = "quiet harbour lantern 42"  # a quoted passphrase with spaces: only "quiet" was masked (session 62)
# passwords on a command line and a bare `key`'s random value (session 62)
MYSQL_PW, SSHPASS_PW, DOCKER_PW, RANDOM_KEY = "Kq7mysqlPw", "Lz4sshWq", "Dv9rEgPw2", "q8Zr3vLp0XmT7bN2kW9s"
NOTES = f"""# Deploy notes

Set the keys in the shell before deploying:

OPENAI_API_KEY={OPENAI}
DB_PASSWORD={DB_PASSWORD}

The CI uses the token {GITHUB} to push tags.

-----BEGIN PRIVATE KEY-----
{PEM_BODY}
-----END PRIVATE KEY-----

Call the admin API with `curl -H "Authorization: Bearer {JWT}" https://admin.internal/`
or the old one with `Authorization: Bearer {BEARER}`.
The app reads DATABASE_URL=postgres://app:{URL_PASSWORD}@db.internal:5432/app at start.
Publish with NPM_TOKEN {NPM} and upload wheels with {PYPI} as the PyPI token.
The staging admin login is admin, password: {SHORT_PASSWORD}
Storage: DefaultEndpointsProtocol=https;AccountName=docs;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net
Alerts post to https://hooks.slack.com/services/{WEBHOOK_PATH} from the release job.

-----BEGIN PGP PRIVATE KEY BLOCK-----
{PGP_BODY}
-----END PGP PRIVATE KEY BLOCK-----

Mirror credentials go in ~/.netrc:

machine mirror.internal login deploy password {NETRC_PASSWORD}
machine backup.internal
  login deploy
  password {NETRC_PASSWORD2}

Check it with `curl -u deploy:{CURL_PASSWORD} https://mirror.internal/health` or

    curl -sS \\
      --user "ops:{CURL_PASSWORD2}" \\
      https://backup.internal/health

Billing tests use {STRIPE_TEST}; the reporting job reads with {STRIPE_RESTRICTED}.
Compose sets DB_PASS={DB_PASS} and
  POSTGRES_PASSWORD: {POSTGRES_PASSWORD}
The mailer's YAML has smtp-pass: {SMTP_PASS}
The backup cron job exports BORG_PASSPHRASE='{PASSPHRASE}' first.

The deploy listens on port 8443 behind the load balancer.
"""
KIOSK = f"""# Kiosk

The password for the staging database is {PROSE_PASSWORD}. Log in to the kiosk with the password '{QUOTED_PASSWORD}'
and set the Wi-Fi password to {WIFI_PASSWORD} before the demo.
Its database: `mysql -u kiosk -p{MYSQL_PW} kiosk`, its box: `sshpass -p '{SSHPASS_PW}' ssh -p 2222 kiosk@demo`.
Images come after `docker login -u kiosk -p {DOCKER_PW} registry.demo`; the app's key = "{RANDOM_KEY}".
"""
DOCS = """# Setup

Export `OPENAI_API_KEY=<your key>` and set `password: ${DB_PASSWORD}`; `max_tokens: 1024` caps answers.
Send `Authorization: Bearer $TOKEN` (Bearer authentication); the URL is `postgres://${DB_USER}:${DB_PASS}@host/db`.
The `password` field is a string: `password: string`, and `password = os.environ["DB_PASSWORD"]` reads it.
Use the default login and password fields, or put machine, login and password lines in the netrc file.
The machine learning login page has a password reset link; `curl -u $USER:$PASS https://host/` prompts for nothing.
Run `docker run -u 1000:1000 app`; pk_live_51HqLzG2eZvKYlo2C8x7Qm4Rt is a publishable key (safe in a browser).
In the test log, `--- PASS: TestParse` and FIRST_PASS: enabled mean the bypass compass=north worked.
Loops take `pass=1`, `n_pass=1000`, `firstPass: enabled`, `isPass = true`; `auth.pass = process.env.SMTP_PASS`.
Code names too: `'allPass': 'overEvery'`, `fastPassParams: ChallengeParams`, `newPassLen = (newPassword ? 1 : 0)`.
A proxy is `scheme://[user:passwd@]proxy.server:port`, e.g. `https://user:password@proxy.example:3128`.
tox passes variables on with `env 'TOX_OVERRIDE=testenv.pass_env=FOO,BAR' tox c -k pass_env -e py`.
The password is required. The password is hashed with bcrypt2 before it is stored, and the password is `None` by
default. The default password is admin. Passwords are case-sensitive; the password is read from PGPASSWORD.
restic can run a program for it instead: `RESTIC_PASSWORD_COMMAND='pass show backup/restic'`.
Connect with `mysql -u root -p mydb` (it prompts), `ssh -p 2222 host`, `docker run -p 8080:80 app`, `docker login
-u me --password-stdin`, `docker login -p PASSWORD`, `mysql -p<password>` or `sshpass -f pwfile ssh -p 2222 host`;
`sort_key = "created_at_2024_v1"`, `key: MyApp_Key_2024`; `key = "d41d8cd98f00b204e9800998ecf8427e"` is a hash.
"""
SECRETS = (OPENAI, GITHUB, DB_PASSWORD, PEM_BODY, JWT_PAYLOAD, BEARER, URL_PASSWORD, NPM[4:], PYPI[4:],
           f"password: {SHORT_PASSWORD}", PGP_BODY, AZURE_KEY, WEBHOOK_PATH, NETRC_PASSWORD, NETRC_PASSWORD2,
           CURL_PASSWORD, CURL_PASSWORD2, STRIPE_TEST[4:], STRIPE_RESTRICTED[4:], DB_PASS, POSTGRES_PASSWORD,
           SMTP_PASS, PROSE_PASSWORD, QUOTED_PASSWORD, WIFI_PASSWORD, PASSPHRASE.split(" ", 1)[1], MYSQL_PW,
           SSHPASS_PW, DOCKER_PW, RANDOM_KEY)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("secrets") / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(NOTES)
    (folder / "setup.md").write_text(DOCS)
    (folder / "kiosk.md").write_text(KIOSK)
    index_dir = tmp_path_factory.mktemp("index")
    (folder / "ragls.toml").write_text(offline_toml(index_dir, sentence_pass=True))
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
    ws = RagWorkspace([folder])
    ws.index()
    yield ws, index_dir
    ws.close()


def test_no_secret_value_reaches_any_store(indexed):
    ws, index_dir = indexed
    files = [p for p in Path(index_dir).rglob("*") if p.is_file()]
    assert any(p.name == "manifest.sqlite" for p in files) and any("vectors" in p.parts for p in files)
    for path in files:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, (secret, path)
    assert ws.status().folders[0].files == 3


def test_the_rest_of_the_file_is_indexed_and_cited_at_its_lines(indexed):
    ws, _ = indexed
    hits = ws.query("which port does the deploy listen on", top_k=2).hits
    top = hits[0]
    assert top.chunk.path == "notes.md"
    assert "port 8443 behind the load balancer" in top.chunk.text
    assert "OPENAI_API_KEY=sk-p" + "*" * (len(OPENAI) - 4) in top.chunk.text
    assert f"postgres://app:{'*' * len(URL_PASSWORD)}@db.internal:5432/app" in top.chunk.text
    assert f"Bearer eyJh{'*' * (len(JWT) - 4)}\"" in top.chunk.text and f"password: {'*' * 6}\n" in top.chunk.text
    assert not any(secret in top.chunk.text for secret in SECRETS)
    assert top.chunk.text.count("\n") == NOTES.strip().count("\n")  # same lines: ranges still match the file
    last = NOTES.splitlines().index("The deploy listens on port 8443 behind the load balancer.")
    assert (top.chunk.span.start_line, top.chunk.span.end_line) == (0, last)
    assert top.chunk.text.splitlines()[last] == NOTES.splitlines()[last]
    setup = ws.query("how do I set the API key", top_k=2).hits
    assert any(h.chunk.path == "setup.md" and "OPENAI_API_KEY=<your key>" in h.chunk.text
               and "max_tokens: 1024" in h.chunk.text for h in setup)  # placeholders and prose are kept
    names = ws.query("how does tox pass environment variables on", top_k=2).hits  # a list of names after pass_env
    assert any("TOX_OVERRIDE=testenv.pass_env=FOO,BAR'" in h.chunk.text for h in names)
    settings = ws.query("is the password hashed before it is stored", top_k=2).hits  # prose about passwords stays
    assert any(h.chunk.path == "setup.md" and "The password is hashed with bcrypt2 before" in h.chunk.text
               and "the password is `None` by" in h.chunk.text and "The default password is admin." in h.chunk.text
               and "read from PGPASSWORD." in h.chunk.text for h in settings)
    [kiosk] = [h for h in ws.query("what is the kiosk password", top_k=3).hits if h.chunk.path == "kiosk.md"]
    assert f"staging database is {'*' * len(PROSE_PASSWORD)}. Log in" in kiosk.chunk.text
    assert f"Wi-Fi password to {'*' * len(WIFI_PASSWORD)} before" in kiosk.chunk.text
    assert f"-p{'*' * len(MYSQL_PW)} kiosk`" in kiosk.chunk.text and "ssh -p 2222 kiosk@demo" in kiosk.chunk.text


def test_masking_keeps_every_offset():
    masked, count = mask_secrets(NOTES)
    assert count >= 10 and len(masked) == len(NOTES) and masked.splitlines()[0] == "# Deploy notes"
    assert [len(line) for line in masked.splitlines()] == [len(line) for line in NOTES.splitlines()]
    assert mask_secrets(DOCS) == (DOCS, 0)


@pytest.mark.parametrize("line", [
    "SMTP_PASS=hunter2", "export SMTP_PASS='hunter2'", "smtp_pass: hunter2", "MAIL_PASSWD=hunter2",
    "REDIS_PWD=hunter2", "EMAIL_HOST_PASS=s3cret!", "smtp-pass: hunter2", "mail.smtp.pass = Tr0ub4dor",
    "smtpPass: 'hunter2'", 'dbPass := "pg_Ld93kq"', "MYSQL_ROOT_PASS=AbcDefgh", "SMTP_PASS=Xy7,pq9"])
def test_a_pass_name_in_any_naming_style_masks_its_value(line):
    """`*_PASS`, `*_PASSWD`, `*_PWD` and the same PASS word in kebab-case, dotted and camelCase names."""
    masked, count = mask_secrets(line)
    value = line.split("=" if "=" in line else ":", 1)[1].strip(" '\"")
    assert count == 1 and value not in masked and masked.endswith("*" * len(value) + line[len(line.rstrip("'\"")):])


@pytest.mark.parametrize(("line", "value"), [
    ('password = "correct horse battery staple"', "correct horse battery staple"),
    ("export BORG_PASSPHRASE='complicated & long'", "complicated & long"),
    ('{"user": "bob", "password": "p@ss w0rd!"}', "p@ss w0rd!"),
])
def test_a_quoted_passphrase_is_masked_whole(line, value):
    """A quoted value with spaces is one secret: only its first word was masked ("******* horse battery staple")."""
    masked, count = mask_secrets(line)
    assert count == 1 and masked == line.replace(value, "*" * len(value))


@pytest.mark.parametrize(("line", "value"), [
    ("mysql -u root -pS3cr3tPw db", "S3cr3tPw"), ("mysqldump --user=app -p'Tr0ub4dor&3' shop", "Tr0ub4dor&3"),
    ("mysql --password=S3cr3tPw -u root", "S3cr3tPw"), ("sshpass -p S3cr3tPw ssh -p 2222 me@host", "S3cr3tPw"),
    ("docker login -u me -p S3cr3tPw ghcr.io", "S3cr3tPw"), ("podman login --password S3cr3tPw quay.io", "S3cr3tPw"),
    ("docker login -u=me -p=S3cr3tPw", "S3cr3tPw"), ("docker login \\\n  -u me \\\n  -p S3cr3tPw reg", "S3cr3tPw"),
    ("helm registry login ghcr.io -u me -p S3cr3tPw", "S3cr3tPw"), ("redis-cli -a S3cr3tPw ping", "S3cr3tPw"),
    ("mongosh -u admin -p S3cr3tPw", "S3cr3tPw"), ("ldapsearch -D cn=admin -w S3cr3tPw", "S3cr3tPw"),
    ("openssl rsa -passin pass:S3cr3tPw -in k.pem", "S3cr3tPw"), ("zip -P S3cr3tPw out.zip f", "S3cr3tPw"),
    ("curl -u user:S3cr3tPw https://api", "S3cr3tPw"), ("PGPASSWORD=S3cr3tPw psql -h db", "S3cr3tPw"),
    ('key = "q8Zr3vLp0XmT7bN2kW9s"', "q8Zr3vLp0XmT7bN2kW9s"), ("token: q8zr3vlp0xmt7bn2", "q8zr3vlp0xmt7bn2"),
    ("clientKey: Hq2Lm9XwZr4Tk7Vb", "Hq2Lm9XwZr4Tk7Vb"),
])
def test_a_password_on_a_command_line_and_a_random_key_value_are_masked(line, value):
    """Shapes a newcomer found unmasked (session 62): a password given to the command whose option takes one, and a
    generated value of a bare `key` name."""
    masked, count = mask_secrets(line)
    assert count == 1 and masked == line.replace(value, "*" * len(value))


@pytest.mark.parametrize("line", [
    "ssh -p 2222 host", "docker run -p 8080:80 app && docker login", "mysql -u root -p mydb", "mysql -p",
    "mongosh -u admin -p", "mysql --password <your-password>", "mysql -pPASSWORD", "docker login -p $REGISTRY_PW",
    'docker login -u=me -p="$DOCKER_PASSWORD"', "sshpass -f pwfile ssh -p 2222 host", "python -m http.server -p 80",
    'sort_key = "created_at_2024_v1"', "key: MyApp_Key_2024", 'key = "d41d8cd98f00b204e9800998ecf8427e"',
    "hotkey = ctrl+shift+K9x", "key: com.example.MyApp2Key", "primary_key = ObjectId12345678"])
def test_a_port_option_a_placeholder_and_a_written_key_value_are_kept(line):
    """`-p` is a port for ssh and docker run; mysql's `-p mydb` prompts; placeholders are the docs' syntax; a key
    value that is a name, a hash or a path is no secret."""
    assert mask_secrets(line) == (line, 0)


def test_no_secret_value_reaches_the_llm_prompt(indexed, llm_server):
    """rag/ask with a loopback model: the notes passage is in the prompt, masked; the echoed answer holds no secret."""
    ws, _ = indexed
    base = ws.settings
    ws.settings = base.model_copy(update={"generation": base.generation.model_copy(
        update={"backend": "openai", "base_url": llm_server.openai_url, "model": "test-model", "max_retries": 0})})
    try:
        answer = ws.ask("which port does the deploy listen on, and how do I check the mirror?", top_k=2)
    finally:
        ws.settings = base
    sent = json.dumps([r.body for r in llm_server.requests], ensure_ascii=False)
    assert llm_server.requests and "port 8443 behind the load balancer" in sent
    assert f"machine mirror.internal login deploy password {'*' * len(NETRC_PASSWORD)}" in sent
    assert f"curl -u deploy:{'*' * len(CURL_PASSWORD)} https://mirror.internal/health" in sent
    assert not any(secret in sent or secret in answer.text for secret in SECRETS)


@pytest.mark.parametrize(("line", "value"), [
    ('os.environ["OPENAI_API_KEY"] = "Tq4wZr8Lm2Xv9Kp3Yd7Hs5Jc"', "Tq4wZr8Lm2Xv9Kp3Yd7Hs5Jc"),
    ("config['db_password'] = 'Wq7ePostgr3s'", "Wq7ePostgr3s"),
    ('env["SMTP_PASS"]="hunter2!"', "hunter2!"),
    ("CACHE_URL=redis://:Zr8wq3LpQ9@cache.internal:6379/0", "Zr8wq3LpQ9"),
    ("client = Groq(api_key=key)  # gsk_Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5",
     "Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5"),
])
def test_a_key_set_in_a_subscript_a_redis_password_and_a_groq_key_are_masked(line, value):
    """Shapes a red-team run found quoted whole in an extractive answer (session 47): a notebook's
    `os.environ["OPENAI_API_KEY"] = "..."`, a URL password without a user name (Redis), a bare Groq key."""
    masked, count = mask_secrets(line)
    assert count >= 1 and value not in masked and len(masked) == len(line)


@pytest.mark.parametrize("line", [
    'value = os.environ["API_TOKEN"]', 'headers["Authorization"] = f"Bearer {token}"',
    'os.environ["SECRET_KEY"] = get_random_secret_key()', "http://[::1]:8000/docs", "redis://:${REDIS_PASS}@host/0"])
def test_code_reading_a_key_is_not_masked(line):
    assert mask_secrets(line) == (line, 0)


_PEM_KEY = (b"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oG4WpcSqZ0f5oAoGCCqGSM49\n"
            b"-----END EC PRIVATE KEY-----\n")
_KEY_DATA = base64.b64encode(_PEM_KEY).decode()
_DOCKER_AUTH = base64.b64encode(b"deploybot:Zr8wq3Lp9xkQ").decode()


@pytest.mark.parametrize(("line", "value"), [
    (f'{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{_DOCKER_AUTH}"}}}}}}', _DOCKER_AUTH),
    (f'    "ghcr.io": {{\n      "auth": "{_DOCKER_AUTH}"\n    }}', _DOCKER_AUTH),
    (f"//registry.npmjs.org/:_auth={_DOCKER_AUTH}", _DOCKER_AUTH),
    (f"    client-key-data: {_KEY_DATA}", _KEY_DATA),
    (f"  tls.key: {_KEY_DATA}", _KEY_DATA),
    (f'{{"private_key_b64": "{_KEY_DATA}"}}', _KEY_DATA),
])
def test_a_registry_login_and_a_base64_private_key_are_masked(line, value):
    """Shapes a red-team run found whole in the index (session 48): a Docker config's `auth` (base64 of
    `user:password`; npm's `_auth` too) and a PEM private key in base64 (a kubeconfig's `client-key-data`, a
    Kubernetes secret's `tls.key`)."""
    masked, count = mask_secrets(line)
    assert count >= 1 and value not in masked and len(masked) == len(line)
    assert masked.replace("*", "") == line.replace(value, "")


@pytest.mark.parametrize("line", [
    '"auth": "oauth2"', "auth: required", '{{"auth": "{}"}}'.format(base64.b64encode(b"no colon in it at all").decode()),
    "    client-certificate-data: {}".format(base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIC5zCCAc+gAwIBAgIBATANBg"
                                                         b"\n-----END CERTIFICATE-----\n").decode()),
    "auth = basic_auth(user, password_hash)"])
def test_an_auth_setting_that_is_no_credential_is_kept(line):
    """A public certificate, an `auth` naming a method, base64 text that is no `user:password` stay searchable."""
    assert mask_secrets(line) == (line, 0)


_SHAPES = {  # gitleaks' shapes of tokens the masker once let through whole (red team, session 49)
    "Slack app-level token": "xapp-1-A0123456789-1234567890123-" + "0a1b2c3d4e5f" * 5,
    "Slack refresh token": "xoxe-1-My0xLTA2NDQ4NDQ5NzQ4ODctNTk3MjE4OTA0MTc2",
    "Stripe webhook secret": "whsec_5f1e2d3c4b5a69788796a5b4c3d2e1f0",
    "SendGrid": "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",
    "Twilio": "SK0123456789abcdef0123456789abcdef",
    "DigitalOcean": "dop_v1_" + "0123456789abcdef" * 4,
    "Databricks": "dapi0123456789abcdef0123456789abcdef",
    "Shopify": "shpat_0123456789abcdef0123456789abcdef",
    "Docker Hub": "dckr_pat_Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5",
    "Linear": "lin_api_Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2Qm",
    "Atlassian": "ATATT3xFfGF0Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2Qm",
    "Heroku": "HRKU-AAZp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2Qm",
    "Postman": "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
    "Grafana": "glsa_Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh_0a1b2c3d",
    "Vault": "hvs.CAESIZp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2",
    "Doppler": "dp.pt.Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2QmZp4R7",
    "Sentry": "sntrys_eyJpYXQiOjE2ODQ5MzQ1NjcuMDEsInVybCI6Imh0dHBzOi8vc2VudHJ5LmlvIn0",
    "Replicate": "r8_Zp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh4Ka2Qm",
    "Perplexity": "pplx-" + "Zp4R7kLm2Qx9Vb3N" * 3,
    "xAI": "xai-" + "Zp4R7kLm2Qx9Vb3Nc8Wd" * 4,
    "age": "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" + "QPZRY9X8GF2TVDW0S3JN54KHCE",
    "Telegram bot": "123456789:AAFZp4R7kLm2Qx9Vb3Nc8Wd1Ys6Tf5Hg0Jh",
    "GitLab runner": "glrt-Zp4R7kLm2Qx9Vb3Nc8Wd1",
    "Google OAuth client secret": "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",
    "Azure SAS": "sig=AbCdEf0123456789AbCdEf0123456789AbCdEfGh%3D",
}


@pytest.mark.parametrize(("kind", "token"), _SHAPES.items())
def test_more_provider_tokens_are_masked(kind, token):
    """A notes file's token of each kind is masked in place (its first four characters kept when it is a provider
    key), in prose, an assignment to an innocent name and a URL query."""
    value = token.removeprefix("sig=")
    lines = ([f"https://acme.blob.core.windows.net/c/f.txt?sv=2021-08-06&sp=r&{token}",
              f"SharedAccessSignature=sv=2021-08-06;{token};se=2027-01-01"] if token.startswith("sig=") else
             [f"The {kind} token is {token} for now.", f"deploy_with = {token}", f"`{token}`"])
    for line in lines:
        masked, count = mask_secrets(line)
        assert count >= 1 and value[4:] not in masked and len(masked) == len(line), (kind, masked)


@pytest.mark.timeout(60)
def test_a_line_of_spaces_is_masked_in_linear_time():
    """A folder's file holding the words a .netrc rule looks for and then a long line of spaces made that rule split
    the line every way (two `[ \\t]*` in a row): 1.3 s for 4,000 spaces under load, quadratic — a 2 MB file within
    `sources.max_file_bytes` would have held up indexing for days (red team, session 49). 200,000 spaces: seconds
    with the fix; the timeout is a hang guard."""
    text = "machine and default password\n" + " " * 200_000 + "\nmachine mirror login deploy password Vt7qN3wzLp\n"
    masked, count = mask_secrets(text)
    assert count == 1 and masked.endswith("password **********\n") and len(masked) == len(text)

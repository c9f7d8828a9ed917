"""Settings, all from the environment (docs/architecture.md §2). One module; no per-environment files.

With nothing set, the service runs on the embedded default: SQLite and a filesystem broker under
DATA_DIR, the database cache for the rate limiter, e-mail printed to the console.
"""

import os
import shutil
from datetime import timedelta
from pathlib import Path

import dj_database_url

from config.env import SanctionsUrls, email_settings, env_bool, env_int, env_list

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("DATA_DIR") or BASE_DIR / "var").resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

SECRET_KEY = os.environ.get("SECRET_KEY") or "insecure-embedded-default-key-set-SECRET_KEY-in-production"
# Encrypts identifiers at rest (tax ids); SECRET_KEY when unset. Changing it makes stored values unreadable.
FIELD_ENCRYPTION_KEY = os.environ.get("FIELD_ENCRYPTION_KEY", "")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
PORT = env_int("PORT", 8000)
HOST = os.environ.get("HOST", "127.0.0.1")  # the address `make run` binds: this machine only unless set (0.0.0.0 for all)
PUBLIC_URL = os.environ.get("PUBLIC_URL", f"http://localhost:{PORT}").rstrip("/")

INSTALLED_APPS = [
    "console",  # before the admin: its templates (the grouped app list) come first
    "console.apps.ConsoleAdminConfig",  # django.contrib.admin with the console's site (membership decides access)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "django_celery_beat",
    "allauth",
    "allauth.account",
    "common",
    "accounts",
    "organizations",
    "onboarding",
    "monitoring",
    "compliance",
    "filings",
    "webhooks",
    "demo",
]

MIDDLEWARE = [
    "common.middleware.RequestContextMiddleware",
    "common.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.SsoEnforcedSessionMiddleware",
    "common.middleware.LazyMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "common.middleware.ApiExceptionMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
SITE_ID = 1

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web, worker, beat) share the file: WAL lets readers run beside a writer,
    # and IMMEDIATE transactions take the write lock up front, so a read-then-write block never
    # dies on a lock upgrade ("database is locked") but waits its turn.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=30000;",
    }
else:
    # Statements are prepared only where the code asks for it (common.prepared: the hot status
    # look-ups), never automatically; DB_PREPARED_STATEMENTS=false for a pooler that cannot keep
    # them (PgBouncer before 1.21 in transaction mode).
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        2**31 - 1 if env_bool("DB_PREPARED_STATEMENTS", True) else None)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
IS_SQLITE = DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
# Covering indexes (Index.include) are a PostgreSQL speed-up; SQLite builds the same index without
# the included columns, which is what this warning says.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

# --- Cache and rate limiter -------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "svc"),
            "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "svc_cache",
        }
    }

RATE_LIMIT_KEY_PREFIX = os.environ.get("CACHE_KEY_PREFIX", "svc")
RATE_LIMIT_WINDOW_SECONDS = 60
RATE_LIMIT_TIERS = {"standard": 100, "premium": 1000}
RATE_LIMIT_ENABLED = env_bool("RATE_LIMIT_ENABLED", True)
# Behind a reverse proxy that appends the client's address to X-Forwarded-For (nginx's
# $proxy_add_x_forwarded_for, a cloud load balancer): take the address it appended, the last entry,
# for the audit trail and the per-IP sign-in limit. Never set it without such a proxy in front.
TRUST_X_FORWARDED_FOR = env_bool("TRUST_X_FORWARDED_FOR", False)
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_FAILURE_WINDOW_SECONDS = env_int("LOGIN_FAILURE_WINDOW_SECONDS", 900)
# Reset e-mails per address and hour: beyond, forgot-password still answers 200 and sends nothing.
PASSWORD_RESET_EMAIL_LIMIT = env_int("PASSWORD_RESET_EMAIL_LIMIT", 3)
PASSWORD_RESET_EMAIL_WINDOW_SECONDS = 3600

# --- Accounts ---------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
    "console.access.MembershipPermissionBackend",  # the console's permissions come from membership (docs/console.md)
]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "accounts.validators.CharacterClassValidator"},
]
SESSION_TOKEN_TTL_HOURS = env_int("SESSION_TOKEN_TTL_HOURS", 24)
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3600)
INVITATION_TTL_DAYS = 7

# Single sign-on (docs/sso.md). Domain verification reads DNS TXT records through these name
# servers ("host" or "host:port"), the system's resolver when empty.
SSO_DNS_NAMESERVERS = env_list("SSO_DNS_NAMESERVERS", [])
SSO_DNS_TIMEOUT_SECONDS = env_int("SSO_DNS_TIMEOUT_SECONDS", 5)
SSO_LOGIN_TTL_SECONDS = env_int("SSO_LOGIN_TTL_SECONDS", 600)  # from /login to the callback
SSO_HTTP_TIMEOUT_SECONDS = env_int("SSO_HTTP_TIMEOUT_SECONDS", 10)  # discovery, token and key requests to an IdP
# An identity provider at a plain-http address is refused; with this set, one on this machine is taken (tests, development).
SSO_ALLOW_HTTP_LOOPBACK = env_bool("SSO_ALLOW_HTTP_LOOPBACK", False)
# SAML: pysaml2 signs and checks signatures with the xmlsec1 program.
SAML_XMLSEC_BINARY = os.environ.get("SAML_XMLSEC_BINARY") or shutil.which("xmlsec1") or "/usr/bin/xmlsec1"

# Google sign-in (/v1/auth/google): the OAuth client registered in Google Cloud; empty = not offered (404).
GOOGLE_CLIENT_ID = os.environ.get("GOOGLE_CLIENT_ID", "")
GOOGLE_CLIENT_SECRET = os.environ.get("GOOGLE_CLIENT_SECRET", "")
# Google's endpoints (overridable for tests and development against a stand-in).
GOOGLE_AUTHORIZATION_URL = os.environ.get("GOOGLE_AUTHORIZATION_URL", "https://accounts.google.com/o/oauth2/v2/auth")
GOOGLE_TOKEN_URL = os.environ.get("GOOGLE_TOKEN_URL", "https://oauth2.googleapis.com/token")
GOOGLE_JWKS_URL = os.environ.get("GOOGLE_JWKS_URL", "https://www.googleapis.com/oauth2/v3/certs")

ACCOUNT_USER_MODEL_USERNAME_FIELD = None
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = 3
ACCOUNT_UNIQUE_EMAIL = True

# --- E-mail -----------------------------------------------------------------------------------
globals().update(email_settings(os.environ.get("EMAIL_URL", "console://"), DATA_DIR))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "compliance@localhost")

# --- Request limits ---------------------------------------------------------------------------
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_JSON_BODY_BYTES", 10 * 1024 * 1024)
MAX_UPLOAD_BYTES = env_int("MAX_UPLOAD_BYTES", 25 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# A 314(a) subject list (docs/information-sharing.md): FinCEN's biweekly lists run to hundreds of
# subjects; these bounds leave room for years of them in one file.
FINCEN_314A_MAX_BYTES = env_int("FINCEN_314A_MAX_BYTES", 5 * 1024 * 1024)
FINCEN_314A_MAX_SUBJECTS = env_int("FINCEN_314A_MAX_SUBJECTS", 20000)

# --- REST framework and OpenAPI ---------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "common.authentication.ApiKeyAuthentication",
        "common.authentication.SessionTokenAuthentication",
        "common.authentication.CookieSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["common.permissions.HasRole"],
    # JSON only; the one upload (POST /v1/monitoring/314a/upload) declares its multipart parser itself.
    "DEFAULT_PARSER_CLASSES": ["common.parsers.JSONObjectParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "common.api.negotiation.JSONFirstContentNegotiation",
    "DEFAULT_SCHEMA_CLASS": "common.api.schema.AutoSchema",
    "DEFAULT_METADATA_CLASS": "common.api.metadata.Metadata",
    "EXCEPTION_HANDLER": "common.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DATETIME_FORMAT": "iso-8601",
    "COERCE_DECIMAL_TO_STRING": True,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Compliance Service API",
    "DESCRIPTION": (
        "Financial-crime compliance for digital assets and fiat: onboarding, screening, monitoring, "
        "cases, regulatory filings and webhooks. Authenticate with `Authorization: Bearer <key>` "
        "(an API key `sk_test_…`/`sk_live_…`, or a session token `st_…` from `/v1/auth/login`)."
    ),
    "VERSION": "0.1.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "RoleEnum": "organizations.choices.Role",
        "ApiKeyModeEnum": "organizations.choices.Mode",
        "ApiKeyTierEnum": "organizations.choices.Tier",
        "ComplianceCheckTypeEnum": "onboarding.choices.CheckType",
        "ComplianceCheckResultEnum": "onboarding.choices.CheckResult",
        "InstrumentCheckTypeEnum": "monitoring.choices.CheckType",  # a fiat check event's (personal, cashier, …)
        "ExternalScreeningResultEnum": "onboarding.api.check_serializers.EXTERNAL_RESULTS",
        "SeverityEnum": "monitoring.choices.Severity",
        "IssueSeverityEnum": ["error", "warning"],  # a filing validation issue's
        "EntityStatusEnum": "onboarding.choices.EntityStatus",
        "WalletStatusEnum": "onboarding.choices.WalletStatus",
        "ScreeningHitStatusEnum": "onboarding.choices.HitStatus",
        "AlertStatusEnum": "monitoring.choices.AlertStatus",
        "DeliveryStatusEnum": "webhooks.models.DeliveryStatus",
        "InboundCallbackStatusEnum": "webhooks.models.InboundStatus",
        "OnchainStatusEnum": "compliance.models.OnchainStatus",
        "OnchainWalletStateEnum": "compliance.status.ONCHAIN_STATES",  # a wallet's onchain.state in the status responses
        "TravelRuleStatusEnum": "compliance.models.TravelRuleStatus",
        "CounterpartyVaspStatusEnum": "compliance.models.VaspStatus",
        "TransferReplyDecisionEnum": ["approved", "rejected", "pending"],
        "InvitationStatusEnum": "organizations.choices.InvitationStatus",
        "CaseStatusEnum": "filings.choices.CaseStatus",
        "Fincen314aFileStatusEnum": "monitoring.models.fincen314a.FileStatus",
        "Fincen314aReviewStatusEnum": "monitoring.models.fincen314a.ReviewStatus",
        "Fincen314aReviewResultEnum": ["positive", "negative"],
        "Fincen314bPartnerStatusEnum": "monitoring.models.fincen314b.PartnerStatus",
        "Fincen314bRequestStatusEnum": "monitoring.models.fincen314b.RequestStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.api.schema.add_error_responses",
        "common.api.schema.fix_nullables",
    ],
}

# --- Celery -----------------------------------------------------------------------------------
# The filesystem transport ignores the host; naming one keeps kombu from warning "No hostname was
# supplied" from every process that connects.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "filesystem://localhost//"
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = DATA_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_TASK_TIME_LIMIT = 300
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Celery's Django fixup closes the database connections around every task unless this is set: a new
# PostgreSQL connection per task costs more than most tasks. Reuse one for this many tasks.
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 100)
CELERY_TIMEZONE = "UTC"

# --- Webhooks (docs/webhooks.md) --------------------------------------------------------------
# Outbound deliveries refuse private, loopback and link-local destinations unless this is true
# (local receivers, tests); WEBHOOK_CA_BUNDLE names a CA file trusted besides the public ones.
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env_bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", False)
WEBHOOK_CA_BUNDLE = os.environ.get("WEBHOOK_CA_BUNDLE", "")
# A delivery task claims up to this many due deliveries of its endpoint and sends them at once
# through this many connections (docs/webhooks.md "How it runs").
WEBHOOK_DELIVERY_BATCH = env_int("WEBHOOK_DELIVERY_BATCH", 64)
WEBHOOK_SEND_CONCURRENCY = env_int("WEBHOOK_SEND_CONCURRENCY", 32)
# Shared secrets of the inbound provider callbacks; a provider without one has its callbacks refused.
KYB_WEBHOOK_SECRET = os.environ.get("KYB_WEBHOOK_SECRET", "")
IDENTITY_WEBHOOK_SECRET = os.environ.get("IDENTITY_WEBHOOK_SECRET", "")
CHAIN_WEBHOOK_SECRET = os.environ.get("CHAIN_WEBHOOK_SECRET", "")

# --- On-chain oracle (docs/oracle.md) ---------------------------------------------------------
# A published status expires on chain this long after it was decided; the beat task
# compliance.republish_expiring writes a fresh row for each wallet whose status expires within the margin.
ONCHAIN_STATUS_TTL = timedelta(days=env_int("ONCHAIN_STATUS_TTL_DAYS", 90))
ONCHAIN_REPUBLISH_MARGIN = timedelta(days=env_int("ONCHAIN_REPUBLISH_MARGIN_DAYS", 7))
# A sent transaction without a receipt this long after its broadcast is replaced (same nonce, fees +12.5 % or more).
ONCHAIN_STUCK_AFTER = timedelta(seconds=env_int("ONCHAIN_STUCK_AFTER_SECONDS", 180))
# Confirmed transactions this many blocks deep or less are re-checked each pass (a reorganisation deeper than
# the chain's confirmations puts their rows back); the seconds and attempts of each JSON-RPC request.
ONCHAIN_REORG_WATCH_BLOCKS = env_int("ONCHAIN_REORG_WATCH_BLOCKS", 64)
ONCHAIN_RPC_TIMEOUT = env_int("ONCHAIN_RPC_TIMEOUT_SECONDS", 10)
ONCHAIN_RPC_ATTEMPTS = env_int("ONCHAIN_RPC_ATTEMPTS", 3)

# --- Chain indexer (docs/indexer.md) ---------------------------------------------------------
# Blocks per getLogs range: it starts at INITIAL, halves on "too many results" or a time-out, doubles (up to MAX) after a
# call faster than FAST seconds. A run indexes at most BLOCKS_PER_RUN blocks, then re-enqueues itself while behind.
INDEXER_INITIAL_SPAN = env_int("INDEXER_INITIAL_SPAN", 100)
INDEXER_MAX_SPAN = env_int("INDEXER_MAX_SPAN", 2000)
INDEXER_FAST_SECONDS = 1.0
INDEXER_BLOCKS_PER_RUN = env_int("INDEXER_BLOCKS_PER_RUN", 5000)
# Registered wallets per topic filter; above LOCAL_FILTER_ABOVE wallets on a chain, all Transfer logs of a range are
# fetched and filtered here.
INDEXER_WALLET_CHUNK = env_int("INDEXER_WALLET_CHUNK", 200)
INDEXER_LOCAL_FILTER_ABOVE = env_int("INDEXER_LOCAL_FILTER_ABOVE", 1000)
# Each JSON-RPC call is tried this many times (HTTP errors, refused connections), after 0.5, 1, 2 ... s with jitter.
INDEXER_RPC_ATTEMPTS = env_int("INDEXER_RPC_ATTEMPTS", 5)
INDEXER_BACKOFF_SECONDS = 0.5
INDEXER_RPC_BATCH = env_int("INDEXER_RPC_BATCH", 100)  # calls per JSON-RPC batch (blocks, receipts, traces)
# A run stops starting new ranges after this many seconds and re-enqueues itself (under the task's time limit).
INDEXER_RUN_SECONDS = env_int("INDEXER_RUN_SECONDS", 60)
INDEXER_LEASE_SECONDS = env_int("INDEXER_LEASE_SECONDS", 240)  # the per-chain lock (past the task's time limit)
INDEXER_INTERVAL_SECONDS = env_int("INDEXER_INTERVAL_SECONDS", 5)  # beat: every enabled chain
# /health is `degraded` when an enabled chain's indexer is further behind than this (blocks past the head minus the
# confirmations, or seconds between the last indexed block and the head), stopped, or has not run for STALE seconds.
INDEXER_LAG_BLOCKS_DEGRADED = env_int("INDEXER_LAG_BLOCKS_DEGRADED", 100)
INDEXER_LAG_SECONDS_DEGRADED = env_int("INDEXER_LAG_SECONDS_DEGRADED", 600)
INDEXER_STALE_RUN_SECONDS = env_int("INDEXER_STALE_RUN_SECONDS", 600)

# --- Locale, static ---------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
FORMAT_MODULE_PATH = ["config.formats"]  # ISO dates and times in the console
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
# The console's front-end libraries (console/package.json, installed by `scripts/npm-deps console`), served
# from node_modules under static/console/lib/<name>/ so the console works offline; a library not installed
# is left out (docs/console.md: its charts' tables still render).
CONSOLE_LIBRARIES = {"chart.js": "chart.js/dist", "cytoscape": "cytoscape/dist"}
# The dashboard's charts (90 days of an organization's work) are read at most this often per organization and
# mode; the dashboard's counts are read on every visit.
CONSOLE_CHARTS_CACHE_SECONDS = env_int("CONSOLE_CHARTS_CACHE_SECONDS", 300)
STATICFILES_DIRS = [(f"console/lib/{name}", BASE_DIR / "console" / "node_modules" / folder)
                    for name, folder in CONSOLE_LIBRARIES.items() if (BASE_DIR / "console" / "node_modules" / folder).is_dir()]
MEDIA_ROOT = DATA_DIR / "media"

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"sweeps_at_debug": {"()": "common.log_filters.SweepsAtDebug"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.request": {"level": "ERROR"},
        "security": {"level": "INFO"},
        # xmlschema says "Resource 'XMLSchema.xsd' is already loaded" at INFO each time a process loads the
        # regulators' schemas: nine lines of noise in make run's first screen
        "xmlschema": {"level": "WARNING"},
        # A PDF (the compliance certificate) makes WeasyPrint log each rendering step and fontTools each
        # table of each font it subsets: some 130 INFO lines per certificate in make run's log
        "weasyprint.progress": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},  # fontTools.subset, fontTools.ttLib, ... inherit it
        # Celery's per-task lines of the beat sweeps (every 5 s) at DEBUG
        **{name: {"filters": ["sweeps_at_debug"]} for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace")},
    },
}

# --- Onboarding: screening providers, language model, risk (docs/onboarding.md) ---------------
# PEP and adverse-media provider (one HTTP implementation); without a URL those checks are recorded
# as `not_configured`. SCREENING_PROVIDER_MONITOR_WEBHOOK_URL asks the provider for continuous monitoring.
SCREENING_PROVIDER_URL = os.environ.get("SCREENING_PROVIDER_URL", "")
SCREENING_PROVIDER_KEY = os.environ.get("SCREENING_PROVIDER_KEY", "")
SCREENING_PROVIDER_NAME = os.environ.get("SCREENING_PROVIDER_NAME", "http_provider")
SCREENING_PROVIDER_TIMEOUT_SECONDS = float(os.environ.get("SCREENING_PROVIDER_TIMEOUT_SECONDS", "10"))
SCREENING_PROVIDER_MONITOR_WEBHOOK_URL = os.environ.get("SCREENING_PROVIDER_MONITOR_WEBHOOK_URL", "")
# An OpenAI-compatible endpoint for the AI risk explanation; deterministic text without one.
OPENAI_BASE_URL = os.environ.get("OPENAI_BASE_URL", "")
OPENAI_API_KEY = os.environ.get("OPENAI_API_KEY", "")
OPENAI_MODEL = os.environ.get("OPENAI_MODEL", "")
OPENAI_TIMEOUT_SECONDS = float(os.environ.get("OPENAI_TIMEOUT_SECONDS", "20"))
# Compliance status look-ups are cached (invalidated on every change of the entity) for this long.
COMPLIANCE_STATUS_CACHE_SECONDS = env_int("COMPLIANCE_STATUS_CACHE_SECONDS", 300)

# --- Sanctions lists (docs/screening.md "Refreshing the lists") ---------------------------------
# Each list's files are downloaded from its publisher's URLs (onboarding.sanctions.registry);
# SANCTIONS_URL_<SOURCE>_<FILE> (upper-cased, anything but letters and digits as "_") overrides one,
# e.g. SANCTIONS_URL_OFAC_SDN_SDN_CSV for ofac_sdn's sdn.csv (a mirror, an authenticated EU URL).
SANCTIONS_URLS = SanctionsUrls(os.environ)
# false: only the URLs set above are used (an air-gapped installation refreshing from its own mirrors)
SANCTIONS_PUBLISHER_URLS = env_bool("SANCTIONS_PUBLISHER_URLS", True)
SANCTIONS_STALE_DAYS = env_int("SANCTIONS_STALE_DAYS", 30)  # older lists: /health degraded, make run warns
ONCHAIN_PENDING_STALE_SECONDS = env_int("ONCHAIN_PENDING_STALE_SECONDS", 600)  # an older pending update: /health degraded
# The lists the beat refreshes; empty: the bundled ones (onboarding.sanctions.refresh.scheduled_sources).
SANCTIONS_REFRESH_LISTS = env_list("SANCTIONS_REFRESH_LISTS", [])
SANCTIONS_REFRESH_INTERVAL = env_int("SANCTIONS_REFRESH_INTERVAL", 86400)  # seconds between scheduled refreshes
# The beat sweep re-screens a list version whose re-screening never ran if it was loaded within this many days
# (onboarding.tasks.sweep_rescreen_pending): older versions, from before every re-screening recorded itself, are left alone.
SANCTIONS_RESCREEN_SWEEP_DAYS = env_int("SANCTIONS_RESCREEN_SWEEP_DAYS", 7)
# A download fails when the connection or any wait for data takes longer, or a file is larger.
SANCTIONS_DOWNLOAD_TIMEOUT = float(os.environ.get("SANCTIONS_DOWNLOAD_TIMEOUT") or 60)
SANCTIONS_DOWNLOAD_MAX_BYTES = env_int("SANCTIONS_DOWNLOAD_MAX_BYTES", 200 * 1024 * 1024)

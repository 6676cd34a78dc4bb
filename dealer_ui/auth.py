"""People of the console: users with hashed PINs or passwords, sessions, and slow-down after failures.

* :class:`UserStore` keeps the users in ``users.json`` in the studio's data folder
  (mode 0600, written atomically). A PIN or password is never stored: only an
  scrypt hash (standard library, n=2**15, r=8, p=1, 16-byte salt), checked in
  constant time. The file is re-read when it changes, so ``studio user add``
  works while the studio runs.
* :class:`SessionStore` keeps sessions server-side: a random token in an
  HttpOnly, SameSite=Strict cookie, a separate CSRF token that every POST must
  echo in a header, an idle timeout and an absolute lifetime. The console keeps
  them in ``console-sessions.sqlite`` in the data folder (mode 0600; only a hash
  of each token), so a restart of the studio signs nobody out.
* :class:`Throttle` slows repeated failures down: after a few free attempts every
  further failure doubles the wait (capped); an attempt during the wait is refused
  without checking the secret. :class:`SignInSlowDown` says whose failures count for
  a sign-in: the account at that address, the address, and the account as a whole
  except at its usual stations (where it last signed in), so that failures from
  anywhere else never lock a dealer out of their own console.

Nothing here does network I/O; hashing is slow on purpose, so callers on the
event loop run :meth:`UserStore.verify` in a worker thread.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.throttle import Throttle

USERS_FILE = "users.json"
DEMO_USERS_FILE = "demo-users.json"

ROLES = ("dealer", "supervisor", "technician", "admin")

#: what each role may do; the API checks these, the pages only follow them
PERMISSIONS: dict[str, frozenset[str]] = {
    # a dealer runs the game at one table
    "dealer": frozenset({"view_tables", "deal"}),
    # a supervisor does what a dealer does, and is the second pair of eyes
    "supervisor": frozenset({"view_tables", "deal", "approve", "view_incidents", "statistics"}),
    # a technician looks after devices; sees the tables but cannot act on a round
    "technician": frozenset({"view_tables", "devices", "device_commands", "statistics"}),
    # an administrator manages people and may look at everything, but is not a second pair of eyes
    "admin": frozenset(
        {"view_tables", "devices", "device_commands", "users", "view_incidents", "statistics"}
    ),
}

USERNAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{1,31}$")
#: shortest accepted secret, by role: a PIN is enough at the table, device and user rights need more
MIN_SECRET = {"dealer": 4, "supervisor": 4, "technician": 8, "admin": 8}
MAX_SECRET = 128

_SCRYPT_N, _SCRYPT_R, _SCRYPT_P, _DKLEN = 2**15, 8, 1, 32
_MAXMEM = 64 * 1024 * 1024


class AuthError(ValueError):
    """A user could not be created or changed; the message says why."""


def hash_secret(secret: str, *, n: int = _SCRYPT_N, r: int = _SCRYPT_R, p: int = _SCRYPT_P) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(secret.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=_DKLEN)
    b64 = base64.b64encode
    return f"scrypt${n}${r}${p}${b64(salt).decode()}${b64(digest).decode()}"


def check_secret(secret: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(
            secret.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            maxmem=_MAXMEM,
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


#: checked against when the user name is unknown, so that a wrong name takes as long as a wrong PIN
_DUMMY_HASH = hash_secret(secrets.token_hex(8))


def check_new_secret(role: str, secret: str) -> None:
    if not isinstance(secret, str) or not secret or secret != secret.strip():
        raise AuthError("a PIN or password must not be empty or start or end with blanks")
    need = MIN_SECRET[role]
    if len(secret) < need:
        raise AuthError(f"a {role}'s PIN or password needs at least {need} characters")
    if len(secret) > MAX_SECRET:
        raise AuthError(f"a PIN or password has at most {MAX_SECRET} characters")
    if len(set(secret)) == 1:
        raise AuthError("a PIN or password of one repeated character is too easy to guess")


@dataclass(frozen=True)
class User:
    username: str
    role: str
    disabled: bool = False

    @property
    def permissions(self) -> frozenset[str]:
        return PERMISSIONS.get(self.role, frozenset())

    def can(self, permission: str) -> bool:
        return not self.disabled and permission in self.permissions


class UserStore:
    """``users.json``: {"users": [{"username", "role", "secret_hash", "created_at", "disabled"}]}."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / USERS_FILE
        self._lock = threading.Lock()
        self._users: dict[str, dict[str, Any]] = {}
        self._stamp: tuple[int, int] | None = None

    # --- reading -------------------------------------------------------------------

    def _load(self) -> dict[str, dict[str, Any]]:
        """The users, re-read when the file changed (another process may add users)."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._users, self._stamp = {}, None
            return self._users
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self._users = {u["username"]: u for u in data.get("users", [])}
            self._stamp = stamp
        return self._users

    def users(self) -> list[User]:
        with self._lock:
            return [User(u["username"], u["role"], bool(u.get("disabled"))) for u in self._load().values()]

    def get(self, username: str) -> User | None:
        with self._lock:
            u = self._load().get(username)
        return User(u["username"], u["role"], bool(u.get("disabled"))) if u else None

    def stamp(self, username: str) -> str | None:
        """A fingerprint of the user's record (role, disabled, secret hash): it changes when any of them does.

        None for a user who does not exist (any more)."""
        with self._lock:
            u = self._load().get(username)
        if u is None:
            return None
        raw = f"{u['role']}|{bool(u.get('disabled'))}|{u['secret_hash']}"
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]

    def verify(self, username: str, secret: str) -> User | None:
        """The user if the name and secret match an enabled user; slow on purpose (scrypt)."""
        with self._lock:
            u = self._load().get(username)
        ok = check_secret(secret if isinstance(secret, str) else "", u["secret_hash"] if u else _DUMMY_HASH)
        if not u or not ok or u.get("disabled"):
            return None
        return User(u["username"], u["role"], False)

    # --- writing -------------------------------------------------------------------

    def add(self, username: str, role: str, secret: str) -> User:
        if not USERNAME_RE.match(username or ""):
            raise AuthError(
                "a user name is 2-32 characters of a-z, 0-9, '.', '_' and '-', starting with a letter "
                "or digit"
            )
        if role not in ROLES:
            raise AuthError(f"unknown role {role!r}; the roles are {', '.join(ROLES)}")
        check_new_secret(role, secret)
        record = {
            "username": username,
            "role": role,
            "secret_hash": hash_secret(secret),
            "created_at": int(time.time()),
            "disabled": False,
        }
        with self._lock:
            users = dict(self._load())
            if username in users:
                raise AuthError(f"there is already a user {username!r}")
            users[username] = record
            self._write(users)
        return User(username, role)

    def set_secret(self, username: str, secret: str) -> None:
        with self._lock:
            users = dict(self._load())
            if username not in users:
                raise AuthError(f"no user {username!r}")
            check_new_secret(users[username]["role"], secret)
            users[username] = dict(users[username], secret_hash=hash_secret(secret))
            self._write(users)

    def set_disabled(self, username: str, disabled: bool) -> None:
        with self._lock:
            users = dict(self._load())
            if username not in users:
                raise AuthError(f"no user {username!r}")
            users[username] = dict(users[username], disabled=bool(disabled))
            self._write(users)

    def _write(self, users: dict[str, dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"users": sorted(users.values(), key=lambda u: u["username"])}, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self._users, self._stamp = users, None  # re-stat on the next read


def ensure_demo_users(data_dir: Path | str) -> dict[str, tuple[str, str]]:
    """One demo user per role (random PINs) when the folder has no users yet: {role: (username, pin)}.

    The PINs are kept in ``demo-users.json`` (mode 0600) next to the users, like the
    demo consumer token, so that a second ``studio demo`` on the same folder prints
    them again. A folder whose users were made otherwise gets none and returns {}.
    """
    data_dir = Path(data_dir)
    store = UserStore(data_dir)
    demo_file = data_dir / DEMO_USERS_FILE
    existing = {u.username: u for u in store.users()}
    if existing:
        if not demo_file.exists():
            return {}
        try:
            saved = json.loads(demo_file.read_text(encoding="utf-8"))
        except ValueError:
            return {}
        return {
            role: (name, pin)
            for role, (name, pin) in saved.items()
            if name in existing and existing[name].role == role and not existing[name].disabled
        }
    created: dict[str, tuple[str, str]] = {}
    for role in ROLES:
        digits = 6 if MIN_SECRET[role] <= 6 else 8
        while True:
            pin = "".join(secrets.choice("0123456789") for _ in range(digits))
            if len(set(pin)) > 1:
                break
        name = f"{role}1"
        store.add(name, role, pin)
        created[role] = (name, pin)
    fd = os.open(demo_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(created, f, indent=1)
    return created


# --- sessions --------------------------------------------------------------------------

SESSIONS_FILE = "console-sessions.sqlite"
#: last-activity times are written to the sessions file at most this often per session (seconds)
TOUCH_WRITE_INTERVAL = 15.0


def token_hash(token: str) -> str:
    """What the sessions file keeps instead of a session token (SHA-256, hex): a stolen file signs nobody in."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class Session:
    token: str
    csrf: str
    user: User
    created: float
    last_seen: float
    ip: str
    #: the user's record when the session began (role, disabled, secret hash): a change ends the session
    stamp: str = ""
    written: float = 0.0  # last_seen as last written to the sessions file

    def expires_at(self, idle: float, lifetime: float) -> float:
        return min(self.last_seen + idle, self.created + lifetime)


class SessionStore:
    """Server-side sessions; not thread-safe: used on the event loop only.

    With a ``path`` (the console uses ``<data>/console-sessions.sqlite``, mode 0600) sessions outlive a
    restart of the studio: the file keeps, per session, only the SHA-256 of its token, its CSRF token, the
    user name and role, a stamp of the user's record, the client address and its times (wall clock). All
    sessions are read at start; every change is written through (a sign-in, a sign-out, a user signed out
    everywhere, an expiry), and the last activity at most every ``TOUCH_WRITE_INTERVAL`` seconds, so a
    restart may cost a session up to that much of its idle time. Without a path: memory only.

    ``user_check(session) -> bool`` (set by the console) is asked on every look-up: a user disabled, given
    a new PIN or another role (through the console or ``studio user`` in another process) is signed out.
    """

    def __init__(
        self,
        *,
        idle_seconds: float = 3600.0,
        lifetime_seconds: float = 12 * 3600.0,
        clock: Callable[[], float] = time.time,
        path: Path | str | None = None,
        user_check: Callable[[Session], bool] | None = None,
    ) -> None:
        self.idle = idle_seconds
        self.lifetime = lifetime_seconds
        self.clock = clock
        self.user_check = user_check
        self._sessions: dict[str, Session] = {}  # by token hash
        self.path = Path(path) if path is not None else None
        self._db: Any = None
        if self.path is not None:
            self._open()

    # --- the file ---------------------------------------------------------------------

    def _open(self) -> None:
        import sqlite3

        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        db.execute(
            "PRAGMA journal_mode=DELETE"
        )  # no -wal/-shm files beside it (their mode would follow umask)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS sessions (token_hash TEXT PRIMARY KEY, csrf TEXT NOT NULL, "
            "username TEXT NOT NULL, role TEXT NOT NULL, stamp TEXT NOT NULL, ip TEXT NOT NULL, "
            "created REAL NOT NULL, last_seen REAL NOT NULL)"
        )
        self._db = db
        now = self.clock()
        for h, csrf, username, role, stamp, ip, created, last_seen in db.execute(
            "SELECT token_hash, csrf, username, role, stamp, ip, created, last_seen FROM sessions"
        ):
            s = Session("", csrf, User(username, role), created, last_seen, ip, stamp, last_seen)
            if now < s.expires_at(self.idle, self.lifetime):
                self._sessions[h] = s
        db.execute(
            f"DELETE FROM sessions WHERE token_hash NOT IN ({','.join('?' * len(self._sessions))})",
            list(self._sessions),
        )

    def _write(self, h: str, s: Session) -> None:
        if self._db is not None:
            self._db.execute(
                "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (h, s.csrf, s.user.username, s.user.role, s.stamp, s.ip, s.created, s.last_seen),
            )
            s.written = s.last_seen

    def _delete(self, hashes: list[str]) -> None:
        if self._db is not None and hashes:
            self._db.executemany("DELETE FROM sessions WHERE token_hash = ?", [(h,) for h in hashes])

    def close(self) -> None:
        """Write the last activity of every session and close the file (the studio stops)."""
        if self._db is None:
            return
        for h, s in self._sessions.items():
            if s.last_seen != s.written:
                self._write(h, s)
        self._db.close()
        self._db = None

    # --- sessions ---------------------------------------------------------------------

    def create(self, user: User, ip: str, stamp: str = "") -> Session:
        self._sweep()
        now = self.clock()
        s = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(24), user, now, now, ip, stamp)
        h = token_hash(s.token)
        self._sessions[h] = s
        self._write(h, s)
        return s

    def get(self, token: str | None, *, touch: bool = True) -> Session | None:
        if not token:
            return None
        h = token_hash(token)
        s = self._sessions.get(h)
        if s is None:
            return None
        now = self.clock()
        if now >= s.expires_at(self.idle, self.lifetime) or (
            self.user_check is not None and not self.user_check(s)
        ):
            del self._sessions[h]
            self._delete([h])
            return None
        if not s.token:
            s.token = token  # a session read back from the file learns its token from the cookie
        if touch:
            s.last_seen = now
            if now - s.written >= TOUCH_WRITE_INTERVAL:
                self._write(h, s)
        return s

    def seconds_left(self, s: Session) -> float:
        return max(0.0, s.expires_at(self.idle, self.lifetime) - self.clock())

    def end(self, token: str | None) -> Session | None:
        if not token:
            return None
        h = token_hash(token)
        s = self._sessions.pop(h, None)
        self._delete([h])
        return s

    def end_user(self, username: str) -> int:
        """Sign a user out everywhere (disabled, PIN changed)."""
        gone = [h for h, s in self._sessions.items() if s.user.username == username]
        for h in gone:
            del self._sessions[h]
        self._delete(gone)
        return len(gone)

    def __len__(self) -> int:
        return len(self._sessions)

    def _sweep(self) -> None:
        now = self.clock()
        gone = [h for h, s in self._sessions.items() if now >= s.expires_at(self.idle, self.lifetime)]
        for h in gone:
            del self._sessions[h]
        self._delete(gone)


class SignInSlowDown:
    """Which failures slow a sign-in down: per account and address, never locking out the usual station.

    Keys (:class:`Throttle`): ``user:NAME@ADDR`` (that account from that address: three free attempts),
    ``ip:ADDR`` (that address guessing any account: ten) and ``user:NAME`` (the account from anywhere), which is
    neither counted nor waited on at the account's usual stations: the last `keep` addresses it signed in from
    (kept in memory: after a restart every station is new until its first sign-in).
    """

    def __init__(self, throttle: Throttle, keep: int = 3) -> None:
        self.throttle = throttle
        self.keep = keep
        self._usual: dict[str, list[str]] = {}

    def usual(self, name: str, ip: str) -> bool:
        return ip in self._usual.get(name, ())

    def keys(self, name: str, ip: str) -> tuple[str, ...]:
        keys = (f"user:{name}@{ip}", f"ip:{ip}")
        return keys if self.usual(name, ip) else (*keys, f"user:{name}")

    def wait(self, name: str, ip: str) -> float:
        """Seconds before this account may try again from this address (0: now)."""
        return self.throttle.wait(*self.keys(name, ip))

    def failed(self, name: str, ip: str) -> None:
        self.throttle.failed(*self.keys(name, ip))

    def succeeded(self, name: str, ip: str) -> None:
        self.throttle.succeeded(f"user:{name}@{ip}")
        stations = [a for a in self._usual.get(name, []) if a != ip]
        self._usual[name] = [ip, *stations][: self.keep]
        if len(self._usual) > self.throttle.max_keys:  # many accounts: forget the oldest one's stations
            self._usual.pop(next(iter(self._usual)))

"""The dealer console and technician workspace, served by the studio's FastAPI app under /console.

* :func:`console_router` - the pages, the JSON API (/console/api/...) and the live WebSocket (/console/ws);
* :func:`ensure_demo_users` - one demo user per role for `studio demo`;
* :class:`UserStore` - the users file (hashed PINs and passwords) that `studio user add` writes.

See docs/console.md.
"""

from .auth import ROLES, UserStore, ensure_demo_users
from .router import console_router

__all__ = ["ROLES", "UserStore", "console_router", "ensure_demo_users"]

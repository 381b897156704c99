"""The identity-service error codes (SPEC §8) and the Spanish text people see for each.

Both providers raise :class:`AuthError` with one of these codes, so screens
never depend on which provider is configured. Sign-in never tells whether an
e-mail has an account: the providers raise ``invalid-credential`` for an
unknown e-mail and for a wrong password alike.

The codes are the identity adapters' own vocabulary, so the error lives here,
beside them, rather than in app.core.errors; it is a ServiceError, so
handlers show it like any other service refusal.
"""

from __future__ import annotations

from app.core.errors import ServiceError
from app.core.text import spanish_duration

AUTH_MESSAGES: dict[str, str] = {
    "email-already-in-use": "Ya existe una cuenta con ese correo. Ingresa o recupera tu contraseña.",
    "wrong-password": "La contraseña actual no es correcta.",
    "user-not-found": "No encontramos esa cuenta.",
    "user-disabled": "Tu cuenta está suspendida. Si crees que es un error, escríbenos desde la página de contacto.",
    "invalid-credential": "El correo o la contraseña no son correctos.",
    "too-many-requests": "Demasiados intentos. Por seguridad, espera unos minutos antes de volver a intentarlo.",
    "network-request-failed": "No pudimos comunicarnos con el servicio de acceso. Revisa tu conexión e inténtalo de nuevo.",
    "requires-recent-login": "Por seguridad, vuelve a ingresar antes de hacer este cambio.",
    "weak-password": "La contraseña no es segura: usa entre 8 y 128 caracteres y evita contraseñas comunes.",
    "popup-closed-by-user": "Cerraste la ventana de acceso antes de terminar. Inténtalo de nuevo.",
    "popup-blocked": "Tu navegador bloqueó la ventana de acceso. Permite ventanas emergentes para este sitio.",
    "operation-not-allowed": "Este método de acceso no está habilitado. Escríbenos si el problema continúa.",
    "unauthorized-domain": "Este sitio no está autorizado para usar el servicio de acceso.",
    # Codes of the e-mailed links and of this product's own rules.
    "invalid-email": "El correo electrónico no es válido.",
    # Sign-in to an unverified account: a new link goes out at most every 10 minutes (five a day).
    "email-not-verified": (
        "Confirma tu correo antes de ingresar con el enlace que te enviamos. Si no lo encuentras, revisa la "
        "carpeta de spam o vuelve a intentarlo más tarde para recibir uno nuevo."
    ),
    "email-not-verified-resent": "Confirma tu correo antes de ingresar: te enviamos un enlace nuevo.",
    "invalid-action-code": "El enlace no es válido o ya fue usado. Pide uno nuevo.",
    "expired-action-code": "El enlace expiró. Pide uno nuevo.",
    "internal-error": "El servicio de acceso falló. Inténtalo de nuevo en unos minutos.",
    # A sign-up past the hourly limit of its network (a phone carrier, an office, a café share one address).
    "proof-required": (
        "Desde tu red se crearon muchas cuentas en la última hora. Tu navegador hará una verificación breve "
        "y enviará el formulario solo: no cierres esta página."
    ),
}


# The same refusals when this app's own limits know how long the wait is.
WAIT_MESSAGES: dict[str, str] = {
    "too-many-requests": "Demasiados intentos. Por seguridad, espera {wait} antes de volver a intentarlo.",
}


class AuthError(ServiceError):
    """An identity-service failure with a stable ``code`` and its Spanish message.

    ``wait_seconds`` (codes of WAIT_MESSAGES only) puts the wait into the message.
    """

    def __init__(self, code: str, *, wait_seconds: float | None = None) -> None:
        if code not in AUTH_MESSAGES:
            raise ValueError(f"unknown identity error code: {code}")
        if wait_seconds is None:
            message = AUTH_MESSAGES[code]
        else:
            message = WAIT_MESSAGES[code].format(wait=spanish_duration(wait_seconds))
        super().__init__(message)
        self.code = code
        self.wait_seconds = wait_seconds


class ProofRequired(AuthError):
    """A sign-up past its client's hourly limit: the browser must answer ``challenge`` (app.core.proof_of_work)."""

    def __init__(self, challenge: str) -> None:
        super().__init__("proof-required")
        self.challenge = challenge

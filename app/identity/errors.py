"""The identity-service error codes (SPEC §8) and the Spanish text people see for each.

Both providers raise :class:`AuthError` with one of these codes, so screens
never depend on which provider is configured. Sign-in never tells whether an
e-mail has an account: the providers raise ``invalid-credential`` for an
unknown e-mail and for a wrong password alike.
"""

from __future__ import annotations

from app.services.errors import ServiceError

AUTH_MESSAGES: dict[str, str] = {
    "email-already-in-use": "Ya existe una cuenta con ese correo. Ingresa o recupera tu contraseña.",
    "wrong-password": "La contraseña actual no es correcta.",
    "user-not-found": "No encontramos esa cuenta.",
    "user-disabled": "Tu cuenta está suspendida. Si crees que es un error, escríbenos desde la página de contacto.",
    "invalid-credential": "El correo o la contraseña no son correctos.",
    "too-many-requests": "Demasiados intentos fallidos. Por seguridad, espera 15 minutos antes de volver a intentarlo.",
    "network-request-failed": "No pudimos comunicarnos con el servicio de acceso. Revisa tu conexión e inténtalo de nuevo.",
    "requires-recent-login": "Por seguridad, vuelve a ingresar antes de hacer este cambio.",
    "weak-password": "La contraseña no es segura: usa entre 8 y 128 caracteres y evita contraseñas comunes.",
    "popup-closed-by-user": "Cerraste la ventana de acceso antes de terminar. Inténtalo de nuevo.",
    "popup-blocked": "Tu navegador bloqueó la ventana de acceso. Permite ventanas emergentes para este sitio.",
    "operation-not-allowed": "Este método de acceso no está habilitado. Escríbenos si el problema continúa.",
    "unauthorized-domain": "Este sitio no está autorizado para usar el servicio de acceso.",
    # Codes of the e-mailed links and of this product's own rules.
    "invalid-email": "El correo electrónico no es válido.",
    "email-not-verified": "Confirma tu correo antes de ingresar: te enviamos un enlace nuevo.",
    "invalid-action-code": "El enlace no es válido o ya fue usado. Pide uno nuevo.",
    "expired-action-code": "El enlace expiró. Pide uno nuevo.",
    "internal-error": "El servicio de acceso falló. Inténtalo de nuevo en unos minutos.",
}


class AuthError(ServiceError):
    """An identity-service failure with a stable ``code`` and its Spanish message."""

    def __init__(self, code: str) -> None:
        if code not in AUTH_MESSAGES:
            raise ValueError(f"unknown identity error code: {code}")
        super().__init__(AUTH_MESSAGES[code])
        self.code = code

"""The privacy page (/disclaimer/privacidad) says exactly what the retention jobs and Mi cuenta do (issue 20 §2):
its figures are those of app.services.privacy, so changing a rule without the page (or the reverse) fails here."""

from __future__ import annotations

from app.content.legal import legal_page
from app.services import privacy


def _text() -> str:
    page = legal_page("privacidad")
    assert page is not None
    return " ".join(paragraph for section in page.sections for paragraph in section.paragraphs)


def test_the_retention_periods_are_the_jobs_own():
    text = _text()
    assert f"borradores de publicaciones que pasan {privacy.DRAFT_KEEP.days} días sin cambios" in text
    assert f"Te avisamos por correo {privacy.DRAFT_WARNING.days} días antes, una sola vez por borrador" in text
    assert privacy.REPORT_CONTACT_KEEP.days == 365 and "pierden el dato de contacto de quien denunció 12 meses" in text
    hours = int(privacy.EXPORT_LINK_LIFETIME.total_seconds() // 3600)
    assert f"se borra {hours} horas después de enviarte el enlace" in text
    assert "sesiones que terminaron" in text and "códigos de un solo uso" in text


def test_the_page_says_what_the_export_and_the_deletion_do():
    text = _text()
    for promise in (
        "Descargar mis datos",
        "tus propias fotos",
        "No incluye datos de otras personas, como quienes envían denuncias, ni las notas internas del equipo",
        f"el enlace vale {int(privacy.EXPORT_LINK_LIFETIME.total_seconds() // 3600)} horas",
        "Eliminar mi cuenta",
        "las fotos en todos nuestros almacenamientos",
        "identificador anónimo",
        "denuncias sobre tus publicaciones se conservan sin vínculo",
        "El último administrador activo no puede eliminar su propia cuenta",
        "crear una cuenta nueva con el mismo correo",
    ):
        assert promise in text, promise

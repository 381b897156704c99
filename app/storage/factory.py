"""The configured photo storage: local disk unless S3_BUCKET is set (boto3 is loaded only then)."""

from __future__ import annotations

from app.settings import Settings, get_settings
from app.storage import Storage
from app.storage.local import LocalStorage, PrivateLocalStorage


def get_storage(settings: Settings | None = None) -> Storage:
    """The configured storage: S3 when S3_BUCKET is set, else local disk under MEDIA_DIR."""
    settings = settings or get_settings()
    if settings.s3_bucket:
        from app.storage.s3 import S3Storage

        return S3Storage.from_settings(settings)
    return LocalStorage(settings.media_dir)


def get_private_storage(settings: Settings | None = None) -> Storage:
    """The storage of private files: the S3_PRIVATE_BUCKET when S3_BUCKET is set, else PRIVATE_MEDIA_DIR."""
    settings = settings or get_settings()
    if settings.s3_bucket:
        from app.storage.s3 import PrivateS3Storage

        return PrivateS3Storage.from_settings(settings, bucket=settings.s3_private_bucket)
    return PrivateLocalStorage(settings.private_media_dir)

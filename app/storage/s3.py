"""Photos and videos in S3-compatible object storage (boto3): what several app servers share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
from botocore.client import Config
from botocore.exceptions import ClientError

from app.core.errors import NotFoundError
from app.settings import Settings
from app.storage import CHUNK_BYTES, NoPublicUrlError, check_key

if TYPE_CHECKING:
    # Stubs only (requirements-test.txt): the served app never imports this.
    from mypy_boto3_s3 import S3Client

_MISSING = {"404", "NoSuchKey", "NotFound"}


@contextlib.contextmanager
def _missing_is_not_found() -> Iterator[None]:
    """A missing object's ClientError as NotFoundError."""
    try:
        yield
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _MISSING:
            raise NotFoundError("El archivo no existe.") from exc
        raise


class S3Storage:
    """Objects in one bucket; public photos are addressed as <endpoint>/<bucket>/<key>."""

    cache_control = "public, max-age=31536000, immutable"

    def __init__(self, *, client: S3Client, bucket: str, public_base_url: str) -> None:
        self.client = client
        self.bucket = bucket
        self.public_base_url = public_base_url.rstrip("/")

    @classmethod
    def from_settings(cls, settings: Settings, *, bucket: str | None = None) -> S3Storage:
        """A client for the configured endpoint, on ``bucket`` (default S3_BUCKET)."""
        bucket = bucket or settings.s3_bucket
        client = boto3.client(
            "s3",
            endpoint_url=settings.s3_endpoint_url or None,
            aws_access_key_id=settings.s3_access_key or None,
            aws_secret_access_key=settings.s3_secret_key or None,
            region_name=settings.s3_region,
            config=Config(
                s3={"addressing_style": "path"},
                connect_timeout=5,
                read_timeout=30,
                retries={"max_attempts": 3, "mode": "standard"},
            ),
        )
        endpoint = settings.s3_endpoint_url or f"https://s3.{settings.s3_region}.amazonaws.com"
        return cls(client=client, bucket=bucket, public_base_url=f"{endpoint}/{bucket}")

    def put(self, key: str, data: bytes, content_type: str) -> None:
        self.client.put_object(
            Bucket=self.bucket,
            Key=check_key(key),
            Body=data,
            ContentType=content_type,
            CacheControl=self.cache_control,
        )

    def put_file(self, key: str, path: Path, content_type: str) -> None:
        # boto3's managed transfer: a multipart upload, a part at a time, past its threshold (8 MB).
        self.client.upload_file(
            str(path),
            self.bucket,
            check_key(key),
            ExtraArgs={"ContentType": content_type, "CacheControl": self.cache_control},
        )

    def get(self, key: str) -> bytes:
        with _missing_is_not_found():
            response = self.client.get_object(Bucket=self.bucket, Key=check_key(key))
        return response["Body"].read()

    def get_file(self, key: str, path: Path) -> None:
        with _missing_is_not_found():
            self.client.download_file(self.bucket, check_key(key), str(path))

    def size(self, key: str) -> int:
        with _missing_is_not_found():
            return self.client.head_object(Bucket=self.bucket, Key=check_key(key))["ContentLength"]

    def read_range(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        with _missing_is_not_found():
            response = self.client.get_object(Bucket=self.bucket, Key=check_key(key), Range=f"bytes={start}-{stop - 1}")
        return response["Body"].iter_chunks(CHUNK_BYTES)

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=check_key(key))

    def exists(self, key: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=check_key(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in _MISSING:
                return False
            raise
        return True

    def public_url(self, key: str) -> str:
        return f"{self.public_base_url}/{check_key(key)}"

    def list_keys(self) -> list[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


class PrivateS3Storage(S3Storage):
    """Private files in a bucket of their own (S3_PRIVATE_BUCKET): never cached, no public URL."""

    cache_control = "private, no-store"

    def public_url(self, key: str) -> str:
        raise NoPublicUrlError("private files have no public URL")

"""Photos in S3-compatible object storage (boto3): what several app servers share."""

from __future__ import annotations

from typing import TYPE_CHECKING

import boto3
from botocore.client import Config
from botocore.exceptions import ClientError

from app.core.errors import NotFoundError
from app.settings import Settings
from app.storage import NoPublicUrlError, check_key

if TYPE_CHECKING:
    # Stubs only (requirements-test.txt): the served app never imports this.
    from mypy_boto3_s3 import S3Client

_MISSING = {"404", "NoSuchKey", "NotFound"}


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

    def get(self, key: str) -> bytes:
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=check_key(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in _MISSING:
                raise NotFoundError("La foto no existe.") from exc
            raise
        return response["Body"].read()

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

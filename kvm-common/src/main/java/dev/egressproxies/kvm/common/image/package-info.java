/**
 * The image fetch pipeline: streams a published disk image over HTTP into a consumer (a libvirt
 * volume upload), independent of libvirt itself.
 *
 * <p>{@link dev.egressproxies.kvm.common.image.ImageSource} says where the image is published and
 * how it is packed; the URL's suffix implies compression and tar archive unless declared.
 * {@link dev.egressproxies.kvm.common.image.ImageFetcher} tells the published size for a quota
 * precheck without downloading, and fetches: GET → published bytes (counted, hashed, checked
 * against Content-Length and the pinned sha256) → decoder (xz, gzip, bzip2, zstd via Commons
 * Compress) → tar member → consumer, in fixed memory and without temporary files, within a transfer
 * budget and the caller's deadline. Messages show the URL as scheme, host and port only
 * ({@link dev.egressproxies.kvm.common.image.RedactedUrl}).
 *
 * <p>A backend caches a base image with it by creating a raw base volume of the image's length
 * (one byte when the length is unknown, which the upload grows in a {@code dir} pool), uploading
 * the content into it, and on success refreshing the pool and writing its completeness marker
 * last; on any failure it deletes the base volume.
 */
package dev.egressproxies.kvm.common.image;

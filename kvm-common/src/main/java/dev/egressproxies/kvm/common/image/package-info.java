/**
 * The image fetch pipeline: streams a published disk image over HTTP into a consumer (a libvirt
 * volume upload), independent of libvirt itself.
 *
 * <p>{@link dev.egressproxies.kvm.common.image.ImageSource} says where the image is published and
 * how it is packed; the URL's suffix implies compression and tar archive unless declared.
 * {@link dev.egressproxies.kvm.common.image.ImageSizeProbe} tells the published size for a quota
 * precheck without downloading. {@link dev.egressproxies.kvm.common.image.ImageFetcher} runs
 * GET → published bytes (counted, hashed, checked against Content-Length and the pinned sha256)
 * → decoder (xz, gzip, bzip2, zstd via Commons Compress) → tar member → consumer, in fixed memory
 * and without temporary files, within a {@link dev.egressproxies.kvm.common.image.TransferBudget}
 * and the caller's deadline. Failures are
 * {@link dev.egressproxies.kvm.common.image.ImageFetchException}s classified TRANSIENT or
 * PERMANENT, whose messages show the URL as scheme, host and port only.
 *
 * <p>How a backend caches a base image with it:
 * <ol>
 *   <li>Create the base volume. When {@link dev.egressproxies.kvm.common.image.ImageContent#length()}
 *       will be known (an uncompressed image, a tar member), a raw volume of that length; otherwise
 *       (a compressed image) a raw volume of one byte, which the upload grows in a {@code dir}
 *       pool.</li>
 *   <li>Fetch, with a consumer that calls {@code LibvirtHost.uploadVolume(volume, stream, length)}
 *       or {@code LibvirtHost.uploadVolumeUntilEnd(volume, stream)}. The stream withholds its last
 *       byte, or its end, until the published bytes passed every check, so a bad image aborts the
 *       upload rather than completing it.</li>
 *   <li>On any failure, delete the base volume. On success, refresh the pool (libvirt then reads
 *       the file's format and virtual size) and write the completeness marker with
 *       {@link dev.egressproxies.kvm.common.image.FetchResult#sha256()} last.</li>
 * </ol>
 */
package dev.egressproxies.kvm.common.image;

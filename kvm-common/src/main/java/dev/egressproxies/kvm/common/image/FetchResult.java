package dev.egressproxies.kvm.common.image;

/**
 * What a successful fetch delivered: the published file, checked, and the image made from it.
 *
 * @param publishedBytes    the published file's length, equal to the Content-Length
 * @param sha256            the lowercase hex sha256 of the published file (before decompression);
 *                          the pinned one when the source pins one
 * @param decompressedBytes the number of image bytes the consumer received
 */
public record FetchResult(long publishedBytes, String sha256, long decompressedBytes) {
}

/** The image fetch pipeline: streams a published disk image over HTTP into a consumer such as a volume upload. */
package dev.egressproxies.kvm.common.image;

/**
 * The image fetch pipeline: streams a published disk image over HTTP into a consumer (a libvirt
 * volume upload), independent of libvirt itself.
 */
package dev.egressproxies.kvm.common.image;

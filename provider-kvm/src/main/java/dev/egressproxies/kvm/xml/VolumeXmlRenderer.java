package dev.egressproxies.kvm.xml;

/**
 * The writer of {@link VolumeDefinition}s as libvirt volume XML, with every name and value escaped.
 *
 * <p>The seam between the provider and whoever writes the XML, so the implementation can be
 * replaced (by kvm-common's builders) without touching the provider.
 */
public interface VolumeXmlRenderer {
    /** The volume XML for {@code volume}. */
    String volumeXml(VolumeDefinition volume);
}

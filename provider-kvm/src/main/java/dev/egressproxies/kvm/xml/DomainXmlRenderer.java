package dev.egressproxies.kvm.xml;

/**
 * The writer of {@link DomainDefinition}s as libvirt domain XML, with every name and value escaped.
 *
 * <p>The seam between the provider and whoever writes the XML, so the implementation can be
 * replaced (by kvm-common's builders) without touching the provider.
 */
public interface DomainXmlRenderer {
    /** The domain XML for {@code domain}. */
    String domainXml(DomainDefinition domain);
}

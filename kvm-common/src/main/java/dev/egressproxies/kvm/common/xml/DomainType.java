package dev.egressproxies.kvm.common.xml;

import java.util.Locale;

/**
 * The {@code type} of a libvirt domain, a host setting: {@link #KVM} where hardware virtualization
 * works for the firmware in use, {@link #QEMU} elsewhere (e.g. UEFI guests on nested KVM).
 */
public enum DomainType {
    /** Hardware-accelerated by KVM. */
    KVM,
    /** Emulated by QEMU's TCG; slow, but runs anywhere. */
    QEMU;

    /** The value of the domain's {@code type} attribute. */
    public String xmlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The type named {@code kvm} or {@code qemu} in any case; IllegalArgumentException for anything else. */
    public static DomainType parse(String text) {
        return XmlDocuments.parseXmlName(DomainType.class, text, "domain type");
    }
}

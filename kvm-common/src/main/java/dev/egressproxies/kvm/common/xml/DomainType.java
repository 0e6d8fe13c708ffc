package dev.egressproxies.kvm.common.xml;

import java.util.Locale;

/**
 * The {@code type} of a libvirt domain: which accelerator runs the guest. A host setting, because
 * what works depends on the host: {@link #KVM} where hardware virtualization is available and
 * works for the firmware in use, {@link #QEMU} (software emulation) elsewhere, for example for
 * UEFI guests on nested KVM that stop with an emulation failure.
 */
public enum DomainType {
    /** Hardware-accelerated by KVM. */
    KVM("kvm"),
    /** Emulated by QEMU's TCG; slow, but runs anywhere. */
    QEMU("qemu");

    private final String xmlName;

    DomainType(String xmlName) {
        this.xmlName = xmlName;
    }

    /** The value of the domain's {@code type} attribute. */
    public String xmlName() {
        return xmlName;
    }

    /**
     * The type named {@code text} ({@code kvm} or {@code qemu}, any case).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static DomainType parse(String text) {
        for (DomainType type : values()) {
            if (type.xmlName.equals(text.strip().toLowerCase(Locale.ROOT))) {
                return type;
            }
        }
        throw new IllegalArgumentException("domain type '" + text + "' is not one of 'kvm' or 'qemu'");
    }
}

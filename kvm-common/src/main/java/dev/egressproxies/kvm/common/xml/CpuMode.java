package dev.egressproxies.kvm.common.xml;

import java.util.Locale;
import java.util.Objects;

/**
 * What CPU the guest sees: a host setting, since what works depends on the host (nested KVM fails
 * {@code host-passthrough} on an MSR where {@code host-model} works).
 */
public sealed interface CpuMode {

    /** libvirt's {@code host-model}: a named model close to the host's CPU. */
    static CpuMode hostModel() {
        return new HostModel();
    }

    /** libvirt's {@code host-passthrough}: the host's CPU as it is. */
    static CpuMode hostPassthrough() {
        return new HostPassthrough();
    }

    /** A named QEMU model such as {@code qemu64} or {@code Skylake-Client}, falling back to a similar one. */
    static CpuMode named(String model) {
        return new Named(model);
    }

    /** No {@code cpu} element: whatever QEMU picks by default. */
    static CpuMode hypervisorDefault() {
        return new HypervisorDefault();
    }

    /** {@code host-model} under KVM, QEMU's default model under emulation. */
    static CpuMode defaultFor(DomainType type) {
        return type == DomainType.KVM ? hostModel() : hypervisorDefault();
    }

    /**
     * The mode a setting names: {@code host-model}, {@code host-passthrough}, {@code default}
     * (QEMU's default model), or else a QEMU CPU model.
     */
    static CpuMode parse(String setting) {
        String value = setting.strip();
        if (value.isEmpty()) {
            throw new IllegalArgumentException("the CPU mode is blank; use host-model, host-passthrough, default"
                    + " or the name of a QEMU CPU model");
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "host-model" -> hostModel();
            case "host-passthrough" -> hostPassthrough();
            case "default" -> hypervisorDefault();
            default -> named(value);
        };
    }

    /** libvirt's {@code host-model}. */
    record HostModel() implements CpuMode {
    }

    /** libvirt's {@code host-passthrough}. */
    record HostPassthrough() implements CpuMode {
    }

    /** A QEMU CPU model as {@code qemu-system-x86_64 -cpu help} names it, in libvirt's {@code custom} mode. */
    record Named(String model) implements CpuMode {
        /** Requires a name. */
        public Named {
            if (Objects.requireNonNull(model, "model").isBlank()) {
                throw new IllegalArgumentException("the CPU model name is blank");
            }
        }
    }

    /** QEMU's default model; no {@code cpu} element is written. */
    record HypervisorDefault() implements CpuMode {
    }
}

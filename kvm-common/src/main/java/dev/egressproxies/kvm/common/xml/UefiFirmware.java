package dev.egressproxies.kvm.common.xml;

import java.util.Objects;

/**
 * The UEFI firmware of a host: a host setting, since the paths differ between distributions and
 * only builds without secure boot (which needs SMM) run on every host.
 */
public record UefiFirmware(String loader, String nvramTemplate) {
    /** Debian's and Ubuntu's OVMF build without secure boot. */
    public static final String DEFAULT_LOADER = "/usr/share/OVMF/OVMF_CODE_4M.fd";
    /** The variable store template that goes with {@link #DEFAULT_LOADER}. */
    public static final String DEFAULT_NVRAM_TEMPLATE = "/usr/share/OVMF/OVMF_VARS_4M.fd";

    /** Requires both paths. */
    public UefiFirmware {
        Objects.requireNonNull(loader, "loader");
        Objects.requireNonNull(nvramTemplate, "nvramTemplate");
        if (loader.isBlank() || nvramTemplate.isBlank()) {
            throw new IllegalArgumentException("UEFI firmware needs both a loader path and an NVRAM template path");
        }
    }

    /** {@link #DEFAULT_LOADER} with {@link #DEFAULT_NVRAM_TEMPLATE}. */
    public static UefiFirmware defaults() {
        return new UefiFirmware(DEFAULT_LOADER, DEFAULT_NVRAM_TEMPLATE);
    }
}

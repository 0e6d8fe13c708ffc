package dev.egressproxies.kvm;

import dev.egressproxies.kvm.common.instance.ImageChoice;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm.config.KvmImage;

/**
 * A configured image as a placement on one host chose it.
 *
 * @param key   the image's name in the configuration, which also names its base volume
 * @param image its settings
 * @param uefi  whether the host boots its VMs with UEFI (a {@code kvm} host's firmware)
 */
record KvmImageChoice(String key, KvmImage image, boolean uefi) implements ImageChoice {
    @Override
    public DiskFormat format() {
        return image.diskFormat();
    }
}

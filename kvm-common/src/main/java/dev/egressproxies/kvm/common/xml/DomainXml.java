package dev.egressproxies.kvm.common.xml;

import static dev.egressproxies.kvm.common.xml.XmlDocuments.append;
import static dev.egressproxies.kvm.common.xml.XmlDocuments.appendText;

import java.util.Set;
import java.util.TreeSet;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Writes libvirt's domain XML for a {@link DomainDefinition}: an x86_64 HVM guest booting from a
 * virtio qcow2 overlay, its NoCloud seed as a read-only SATA CD-ROM, one virtio interface on the
 * host's bridge, a serial console, a guest agent channel and the platform's metadata; and reads
 * back the files a domain's disks use.
 */
public final class DomainXml {
    private DomainXml() {
    }

    /** The domain XML for {@code definition}. */
    public static String of(DomainDefinition definition) {
        Element domain = root(definition.name(), definition.platform());
        definition.metadata().appendTo(append(domain, "metadata"));
        appendText(domain, "memory", Long.toString(definition.memoryMiB()), "unit", "MiB");
        appendText(domain, "vcpu", Integer.toString(definition.vcpus()));
        Element os = append(domain, "os");
        appendText(os, "type", "hvm", "arch", "x86_64");
        if (definition.uefi()) {
            UefiFirmware firmware = definition.platform().uefi();
            appendText(os, "loader", firmware.loader(), "readonly", "yes", "type", "pflash");
            // libvirt copies the template to a per-domain store; undefine with the NVRAM flag removes it.
            append(os, "nvram", "template", firmware.nvramTemplate());
        }
        append(os, "boot", "dev", "hd");
        Element features = append(domain, "features");
        append(features, "acpi");
        append(features, "apic");
        CpuMode mode = definition.platform().cpuMode();
        if (mode instanceof CpuMode.HostModel) {
            append(domain, "cpu", "mode", "host-model");
        } else if (mode instanceof CpuMode.HostPassthrough) {
            append(domain, "cpu", "mode", "host-passthrough");
        } else if (mode instanceof CpuMode.Named named) {
            appendText(append(domain, "cpu", "mode", "custom", "match", "exact"), "model", named.model(),
                    "fallback", "allow");
        }
        // HypervisorDefault: no element, QEMU picks its default model.
        append(domain, "clock", "offset", "utc");
        appendText(domain, "on_poweroff", "destroy");
        appendText(domain, "on_reboot", "restart");
        appendText(domain, "on_crash", "destroy");

        Element devices = append(domain, "devices");
        Element disk = fileDisk(devices, "disk", DiskFormat.QCOW2, definition.diskPath());
        append(disk, "target", "dev", "vda", "bus", "virtio");
        // SATA works on both machine types (q35 has no IDE); cloud-init finds the seed by its label.
        Element seed = fileDisk(devices, "cdrom", DiskFormat.RAW, definition.seedPath());
        append(seed, "target", "dev", "sda", "bus", "sata");
        append(seed, "readonly");
        appendBridgeInterface(devices, definition.bridge());
        append(append(devices, "serial", "type", "pty"), "target", "port", "0");
        append(append(devices, "console", "type", "pty"), "target", "type", "serial", "port", "0");
        // libvirt picks the host-side socket path itself when none is given.
        append(append(devices, "channel", "type", "unix"), "target", "type", "virtio", "name",
                "org.qemu.guest_agent.0");
        return XmlDocuments.serialize(domain);
    }

    /**
     * A small stopped domain as someone other than this platform would define it: no metadata, no
     * disks, one interface on {@code bridge}. Conformance runs plant it to check that it is left alone.
     */
    public static String unmanaged(String name, HostPlatform platform, String bridge) {
        Element domain = root(name, platform);
        appendText(domain, "memory", "64", "unit", "MiB");
        appendText(domain, "vcpu", "1");
        appendText(append(domain, "os"), "type", "hvm", "arch", "x86_64");
        appendBridgeInterface(append(domain, "devices"), bridge);
        return XmlDocuments.serialize(domain);
    }

    private static Element root(String name, HostPlatform platform) {
        Element domain = XmlDocuments.newRoot("domain");
        domain.setAttribute("type", platform.domainType().xmlName());
        appendText(domain, "name", name);
        return domain;
    }

    private static void appendBridgeInterface(Element devices, String bridge) {
        Element network = append(devices, "interface", "type", "bridge");
        append(network, "source", "bridge", bridge);
        append(network, "model", "type", "virtio");
    }

    /**
     * Every file a domain's disks name: each disk's source and, where libvirt reports a backing
     * chain (a running domain's live XML does), every file of that chain. IllegalArgumentException
     * when the XML is malformed.
     */
    public static Set<String> diskFiles(String xml) {
        Element root = XmlDocuments.parse(xml).getDocumentElement();
        Set<String> files = new TreeSet<>();
        for (Element devices : XmlDocuments.children(root, "devices")) {
            for (Element disk : XmlDocuments.children(devices, "disk")) {
                NodeList sources = disk.getElementsByTagName("source");
                for (int index = 0; index < sources.getLength(); index++) {
                    Element source = (Element) sources.item(index);
                    String file = source.getAttribute("file");
                    if (!file.isBlank()) {
                        files.add(file.strip());
                    }
                }
            }
        }
        return files;
    }

    private static Element fileDisk(Element devices, String device, DiskFormat format, String path) {
        Element disk = append(devices, "disk", "type", "file", "device", device);
        append(disk, "driver", "name", "qemu", "type", format.xmlName());
        append(disk, "source", "file", path);
        return disk;
    }
}

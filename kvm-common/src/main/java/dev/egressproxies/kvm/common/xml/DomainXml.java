package dev.egressproxies.kvm.common.xml;

import static dev.egressproxies.kvm.common.xml.XmlDocuments.append;
import static dev.egressproxies.kvm.common.xml.XmlDocuments.appendText;
import static dev.egressproxies.kvm.common.xml.XmlDocuments.attribute;

import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Writes libvirt's domain XML for a {@link DomainDefinition}: an x86_64 HVM guest booting from a
 * virtio qcow2 overlay, its NoCloud seed as a read-only SATA CD-ROM, one virtio interface on the
 * host's bridge, a serial console, a guest agent channel and the platform's metadata.
 */
public final class DomainXml {
    private DomainXml() {
    }

    /** The domain XML for {@code definition}. */
    public static String of(DomainDefinition definition) {
        Document document = XmlDocuments.newDocument();
        Element domain = document.createElement("domain");
        document.appendChild(domain);
        attribute(domain, "type", definition.platform().domainType().xmlName());
        appendText(domain, "name", definition.name());
        definition.metadata().appendTo(append(domain, "metadata"));
        attribute(appendText(domain, "memory", Long.toString(definition.memoryMiB())), "unit", "MiB");
        appendText(domain, "vcpu", Integer.toString(definition.vcpus()));
        appendOperatingSystem(domain, definition);
        Element features = append(domain, "features");
        append(features, "acpi");
        append(features, "apic");
        appendCpu(domain, definition.platform().cpuMode());
        attribute(append(domain, "clock"), "offset", "utc");
        appendText(domain, "on_poweroff", "destroy");
        appendText(domain, "on_reboot", "restart");
        appendText(domain, "on_crash", "destroy");
        appendDevices(domain, definition);
        return XmlDocuments.serialize(document);
    }

    /**
     * A small stopped domain as someone other than this platform would define it: no metadata, no
     * disks, one interface on {@code bridge}. Conformance runs plant it to check that it is left alone.
     */
    public static String unmanaged(String name, HostPlatform platform, String bridge) {
        Document document = XmlDocuments.newDocument();
        Element domain = document.createElement("domain");
        document.appendChild(domain);
        attribute(domain, "type", platform.domainType().xmlName());
        appendText(domain, "name", name);
        attribute(appendText(domain, "memory", "64"), "unit", "MiB");
        appendText(domain, "vcpu", "1");
        attribute(appendText(append(domain, "os"), "type", "hvm"), "arch", "x86_64");
        appendBridgeInterface(append(domain, "devices"), bridge);
        return XmlDocuments.serialize(document);
    }

    private static void appendOperatingSystem(Element domain, DomainDefinition definition) {
        Element os = append(domain, "os");
        attribute(appendText(os, "type", "hvm"), "arch", "x86_64");
        if (definition.uefi()) {
            UefiFirmware firmware = definition.platform().uefi();
            Element loader = appendText(os, "loader", firmware.loader());
            attribute(loader, "readonly", "yes");
            attribute(loader, "type", "pflash");
            // libvirt copies the template to a per-domain store; undefine with the NVRAM flag removes it.
            attribute(append(os, "nvram"), "template", firmware.nvramTemplate());
        }
        attribute(append(os, "boot"), "dev", "hd");
    }

    private static void appendCpu(Element domain, CpuMode mode) {
        if (mode instanceof CpuMode.HostModel) {
            attribute(append(domain, "cpu"), "mode", "host-model");
        } else if (mode instanceof CpuMode.HostPassthrough) {
            attribute(append(domain, "cpu"), "mode", "host-passthrough");
        } else if (mode instanceof CpuMode.Named named) {
            Element cpu = append(domain, "cpu");
            attribute(cpu, "mode", "custom");
            attribute(cpu, "match", "exact");
            attribute(appendText(cpu, "model", named.model()), "fallback", "allow");
        }
        // HypervisorDefault: no element, QEMU picks its default model.
    }

    private static void appendDevices(Element domain, DomainDefinition definition) {
        Element devices = append(domain, "devices");

        Element disk = fileDisk(devices, "disk", DiskFormat.QCOW2, definition.diskPath());
        attribute(attribute(append(disk, "target"), "dev", "vda"), "bus", "virtio");

        // SATA works on both machine types (q35 has no IDE); cloud-init finds the seed by its label.
        Element seed = fileDisk(devices, "cdrom", DiskFormat.RAW, definition.seedPath());
        attribute(attribute(append(seed, "target"), "dev", "sda"), "bus", "sata");
        append(seed, "readonly");

        appendBridgeInterface(devices, definition.bridge());

        Element serial = attribute(append(devices, "serial"), "type", "pty");
        attribute(append(serial, "target"), "port", "0");
        Element console = attribute(append(devices, "console"), "type", "pty");
        attribute(attribute(append(console, "target"), "type", "serial"), "port", "0");

        // libvirt picks the host-side socket path itself when none is given.
        Element agent = attribute(append(devices, "channel"), "type", "unix");
        attribute(attribute(append(agent, "target"), "type", "virtio"), "name", "org.qemu.guest_agent.0");
    }

    private static void appendBridgeInterface(Element devices, String bridge) {
        Element network = attribute(append(devices, "interface"), "type", "bridge");
        attribute(append(network, "source"), "bridge", bridge);
        attribute(append(network, "model"), "type", "virtio");
    }

    private static Element fileDisk(Element devices, String device, DiskFormat format, String path) {
        Element disk = append(devices, "disk");
        attribute(disk, "type", "file");
        attribute(disk, "device", device);
        attribute(attribute(append(disk, "driver"), "name", "qemu"), "type", format.xmlName());
        attribute(append(disk, "source"), "file", path);
        return disk;
    }
}

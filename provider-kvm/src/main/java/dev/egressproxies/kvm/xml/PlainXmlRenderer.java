package dev.egressproxies.kvm.xml;

import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * The domain and volume XML writer of this module: plain text assembly with every value escaped.
 *
 * <p>It stands in until kvm-common's XML builders arrive; replacing it means rewriting this one
 * file to delegate to them (the provider only sees {@link DomainXmlRenderer} and
 * {@link VolumeXmlRenderer}). Whatever replaces it must keep the metadata element exactly as
 * {@link InstanceMetadata} describes it, because {@link InstanceMetadataReader} reads it back.
 */
public final class PlainXmlRenderer implements DomainXmlRenderer, VolumeXmlRenderer {
    /** The one instance; it holds no state. */
    public static final PlainXmlRenderer INSTANCE = new PlainXmlRenderer();

    /** The virtio-serial port name the QEMU guest agent listens on. */
    static final String GUEST_AGENT_CHANNEL = "org.qemu.guest_agent.0";

    private PlainXmlRenderer() {
    }

    @Override
    public String domainXml(DomainDefinition domain) {
        StringBuilder xml = new StringBuilder(2048);
        xml.append("<domain type='").append(escape(domain.domainType())).append("'>\n");
        xml.append("  <name>").append(escape(domain.name())).append("</name>\n");
        appendMetadata(xml, domain.metadata());
        xml.append("  <memory unit='MiB'>").append(domain.memoryMiB()).append("</memory>\n");
        xml.append("  <vcpu>").append(domain.vcpus()).append("</vcpu>\n");
        appendOs(xml, domain);
        xml.append("  <features><acpi/><apic/></features>\n");
        appendCpu(xml, domain.cpuMode());
        xml.append("  <on_poweroff>destroy</on_poweroff>\n");
        xml.append("  <on_reboot>restart</on_reboot>\n");
        xml.append("  <on_crash>destroy</on_crash>\n");
        xml.append("  <devices>\n");
        xml.append("    <disk type='file' device='disk'>\n");
        xml.append("      <driver name='qemu' type='qcow2'/>\n");
        xml.append("      <source file='").append(escape(domain.diskPath())).append("'/>\n");
        xml.append("      <target dev='vda' bus='virtio'/>\n");
        xml.append("    </disk>\n");
        // SATA works on both i440fx (libvirt adds an AHCI controller) and q35, which has no IDE.
        xml.append("    <disk type='file' device='cdrom'>\n");
        xml.append("      <driver name='qemu' type='raw'/>\n");
        xml.append("      <source file='").append(escape(domain.seedPath())).append("'/>\n");
        xml.append("      <target dev='sda' bus='sata'/>\n");
        xml.append("      <readonly/>\n");
        xml.append("    </disk>\n");
        xml.append("    <interface type='bridge'>\n");
        xml.append("      <source bridge='").append(escape(domain.bridge())).append("'/>\n");
        xml.append("      <model type='virtio'/>\n");
        xml.append("    </interface>\n");
        // The guest agent is the second address source when the host's ARP table has none.
        xml.append("    <channel type='unix'>\n");
        xml.append("      <target type='virtio' name='").append(GUEST_AGENT_CHANNEL).append("'/>\n");
        xml.append("    </channel>\n");
        xml.append("    <serial type='pty'><target port='0'/></serial>\n");
        xml.append("    <console type='pty'><target type='serial' port='0'/></console>\n");
        xml.append("    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>\n");
        xml.append("  </devices>\n");
        xml.append("</domain>\n");
        return xml.toString();
    }

    @Override
    public String volumeXml(VolumeDefinition volume) {
        StringBuilder xml = new StringBuilder(512);
        xml.append("<volume>\n");
        xml.append("  <name>").append(escape(volume.name())).append("</name>\n");
        xml.append("  <capacity unit='bytes'>").append(volume.capacityBytes()).append("</capacity>\n");
        xml.append("  <target><format type='").append(escape(volume.format())).append("'/></target>\n");
        if (volume.backingPath() != null) {
            xml.append("  <backingStore>\n");
            xml.append("    <path>").append(escape(volume.backingPath())).append("</path>\n");
            xml.append("    <format type='").append(escape(volume.backingFormat())).append("'/>\n");
            xml.append("  </backingStore>\n");
        }
        xml.append("</volume>\n");
        return xml.toString();
    }

    private static void appendMetadata(StringBuilder xml, InstanceMetadata metadata) {
        String prefix = InstanceMetadata.PREFIX + ":";
        xml.append("  <metadata>\n");
        xml.append("    <").append(prefix).append(InstanceMetadata.ELEMENT).append(" xmlns:")
                .append(InstanceMetadata.PREFIX).append("='").append(escape(InstanceMetadata.NAMESPACE)).append("'>\n");
        xml.append("      <").append(prefix).append(InstanceMetadata.UID_ELEMENT).append('>')
                .append(escape(metadata.uid()))
                .append("</").append(prefix).append(InstanceMetadata.UID_ELEMENT).append(">\n");
        xml.append("      <").append(prefix).append(InstanceMetadata.CREATED_ELEMENT).append('>')
                .append(DateTimeFormatter.ISO_INSTANT.format(metadata.createdAt().truncatedTo(ChronoUnit.SECONDS)))
                .append("</").append(prefix).append(InstanceMetadata.CREATED_ELEMENT).append(">\n");
        xml.append("    </").append(prefix).append(InstanceMetadata.ELEMENT).append(">\n");
        xml.append("  </metadata>\n");
    }

    private static void appendCpu(StringBuilder xml, String cpuMode) {
        switch (cpuMode) {
            case "default" -> {
                // No element: QEMU picks its default model.
            }
            case "host-model", "host-passthrough" -> xml.append("  <cpu mode='").append(cpuMode).append("'/>\n");
            default -> xml.append("  <cpu mode='custom' match='exact'><model fallback='allow'>")
                    .append(escape(cpuMode)).append("</model></cpu>\n");
        }
    }

    private static void appendOs(StringBuilder xml, DomainDefinition domain) {
        xml.append("  <os>\n");
        xml.append("    <type arch='x86_64'>hvm</type>\n");
        if (domain.uefiLoader() != null) {
            xml.append("    <loader readonly='yes' type='pflash'>").append(escape(domain.uefiLoader()))
                    .append("</loader>\n");
            // libvirt copies the template to a per-domain NVRAM file, removed by undefine's NVRAM flag.
            xml.append("    <nvram template='").append(escape(domain.uefiVarsTemplate())).append("'/>\n");
        }
        xml.append("    <boot dev='hd'/>\n");
        xml.append("  </os>\n");
    }

    /**
     * Escapes text for element content and single- or double-quoted attributes.
     *
     * @throws IllegalArgumentException for characters XML 1.0 cannot carry at all
     */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        text.codePoints().forEach(character -> {
            switch (character) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '\'' -> escaped.append("&apos;");
                case '"' -> escaped.append("&quot;");
                default -> {
                    if (!allowedInXml(character)) {
                        throw new IllegalArgumentException("'" + text.replaceAll("\\p{Cntrl}", "?")
                                + "' contains a character XML cannot carry (U+"
                                + Integer.toHexString(character).toUpperCase(Locale.ROOT) + ")");
                    }
                    escaped.appendCodePoint(character);
                }
            }
        });
        return escaped.toString();
    }

    private static boolean allowedInXml(int character) {
        return character == 0x9 || character == 0xA || character == 0xD
                || character >= 0x20 && character <= 0xD7FF
                || character >= 0xE000 && character <= 0xFFFD
                || character >= 0x10000 && character <= 0x10FFFF;
    }
}

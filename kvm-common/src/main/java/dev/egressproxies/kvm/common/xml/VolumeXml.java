package dev.egressproxies.kvm.common.xml;

import static dev.egressproxies.kvm.common.xml.XmlDocuments.append;
import static dev.egressproxies.kvm.common.xml.XmlDocuments.appendText;

import java.util.Objects;
import java.util.Optional;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** libvirt's storage volume XML: raw volumes, base images and per-VM overlays; and an overlay's backing path. */
public final class VolumeXml {
    private VolumeXml() {
    }

    /** A raw volume of exactly {@code capacityBytes} for an upload that writes every byte: a seed or a marker. */
    public static String raw(String name, long capacityBytes) {
        return image(name, DiskFormat.RAW, capacityBytes);
    }

    /** A volume as large as the image file to upload into it; a pool refresh then reads the image's real size. */
    public static String image(String name, DiskFormat format, long capacityBytes) {
        Objects.requireNonNull(format, "format");
        requirePositive(capacityBytes, "capacity of volume " + name + " in bytes");
        Element volume = volume(name);
        appendText(volume, "capacity", Long.toString(capacityBytes), "unit", "bytes");
        appendText(volume, "allocation", "0", "unit", "bytes");
        append(append(volume, "target"), "format", "type", format.xmlName());
        return XmlDocuments.serialize(volume);
    }

    /** A per-VM qcow2 overlay of {@code capacityGiB} reading through to the base image at {@code backingPath}. */
    public static String overlay(String name, long capacityGiB, String backingPath, DiskFormat backingFormat) {
        Objects.requireNonNull(backingFormat, "backingFormat");
        requirePositive(capacityGiB, "capacity of volume " + name + " in GiB");
        if (backingPath == null || backingPath.isBlank()) {
            throw new IllegalArgumentException("overlay volume " + name + " needs the path of its base image");
        }
        Element volume = volume(name);
        appendText(volume, "capacity", Long.toString(capacityGiB), "unit", "GiB");
        append(append(volume, "target"), "format", "type", DiskFormat.QCOW2.xmlName());
        Element backingStore = append(volume, "backingStore");
        appendText(backingStore, "path", backingPath);
        append(backingStore, "format", "type", backingFormat.xmlName());
        return XmlDocuments.serialize(volume);
    }

    /** The backing store path (an overlay's base image) a volume's XML names; IllegalArgumentException if malformed. */
    public static Optional<String> backingPath(String xml) {
        Element root = XmlDocuments.parse(xml).getDocumentElement();
        for (Element backingStore : XmlDocuments.children(root, "backingStore")) {
            NodeList paths = backingStore.getElementsByTagName("path");
            if (paths.getLength() > 0 && !paths.item(0).getTextContent().isBlank()) {
                return Optional.of(paths.item(0).getTextContent().strip());
            }
        }
        return Optional.empty();
    }

    private static Element volume(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("the volume name is blank");
        }
        Element volume = XmlDocuments.newRoot("volume");
        appendText(volume, "name", name);
        return volume;
    }

    private static void requirePositive(long value, String what) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " is " + value + "; it must be positive");
        }
    }
}

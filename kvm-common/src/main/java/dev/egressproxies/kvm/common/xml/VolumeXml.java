package dev.egressproxies.kvm.common.xml;

import static dev.egressproxies.kvm.common.xml.XmlDocuments.append;
import static dev.egressproxies.kvm.common.xml.XmlDocuments.appendText;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
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
        return backingPath(XmlDocuments.parse(xml).getDocumentElement());
    }

    private static Optional<String> backingPath(Element root) {
        for (Element backingStore : XmlDocuments.children(root, "backingStore")) {
            NodeList paths = backingStore.getElementsByTagName("path");
            if (paths.getLength() > 0 && !paths.item(0).getTextContent().isBlank()) {
                return Optional.of(paths.item(0).getTextContent().strip());
            }
        }
        return Optional.empty();
    }

    /**
     * What a volume's XML says of it, as libvirt describes an existing volume: its sizes, its
     * backing store, and when it was made, from the file's birth time where the pool reports one,
     * else its last modification (written once, a base's last write ends its fetch).
     *
     * @param capacityBytes   the virtual size; 0 when the XML gives none
     * @param allocationBytes the space it takes; 0 when the XML gives none
     * @param backingPath     the path of its backing store, if any
     * @param createdAt       empty when the XML has no timestamps
     */
    public record Description(long capacityBytes, long allocationBytes, Optional<String> backingPath,
                              Optional<Instant> createdAt) {
    }

    private static final Map<String, Long> UNITS = Map.ofEntries(Map.entry("b", 1L), Map.entry("bytes", 1L),
            Map.entry("kb", 1000L), Map.entry("k", 1L << 10), Map.entry("kib", 1L << 10),
            Map.entry("mb", 1000_000L), Map.entry("m", 1L << 20), Map.entry("mib", 1L << 20),
            Map.entry("gb", 1000_000_000L), Map.entry("g", 1L << 30), Map.entry("gib", 1L << 30),
            Map.entry("tb", 1000_000_000_000L), Map.entry("t", 1L << 40), Map.entry("tib", 1L << 40));

    /** Reads a volume's XML; IllegalArgumentException if malformed. */
    public static Description describe(String xml) {
        Element root = XmlDocuments.parse(xml).getDocumentElement();
        Optional<Instant> created = Optional.empty();
        for (Element target : XmlDocuments.children(root, "target")) {
            for (Element timestamps : XmlDocuments.children(target, "timestamps")) {
                created = timestamp(timestamps, "btime").or(() -> timestamp(timestamps, "mtime"));
            }
        }
        return new Description(size(root, "capacity"), size(root, "allocation"), backingPath(root), created);
    }

    private static long size(Element volume, String element) {
        for (Element size : XmlDocuments.children(volume, element)) {
            String unit = size.getAttribute("unit").isEmpty() ? "bytes"
                    : size.getAttribute("unit").toLowerCase(Locale.ROOT);
            Long factor = UNITS.get(unit);
            if (factor == null) {
                throw new IllegalArgumentException("volume " + element + " has the unknown unit '" + unit + "'");
            }
            try {
                return Math.multiplyExact(Long.parseLong(size.getTextContent().strip()), factor);
            } catch (NumberFormatException | ArithmeticException unreadable) {
                throw new IllegalArgumentException("volume " + element + " '" + size.getTextContent()
                        + "' is not a size in bytes", unreadable);
            }
        }
        return 0;
    }

    /** Seconds since the epoch with a fraction, as libvirt writes them; empty when absent or zero. */
    private static Optional<Instant> timestamp(Element timestamps, String element) {
        for (Element time : XmlDocuments.children(timestamps, element)) {
            try {
                BigDecimal seconds = new BigDecimal(time.getTextContent().strip());
                if (seconds.signum() > 0) {
                    return Optional.of(Instant.ofEpochSecond(seconds.longValue(),
                            seconds.remainder(BigDecimal.ONE).movePointRight(9).longValue()));
                }
            } catch (NumberFormatException unreadable) {
                throw new IllegalArgumentException("volume timestamp " + element + " '" + time.getTextContent()
                        + "' is not a number of seconds", unreadable);
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

package dev.egressproxies.kvm.common.xml;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What a host offers for the domains of one domain type, read from libvirt's domain capabilities
 * ({@code virsh domcapabilities --virttype TYPE}): the machine a domain gets when it names none,
 * the UEFI loaders libvirt knows from the firmware descriptors installed there, the CPU modes it
 * supports and the named CPU models with whether the host can run them.
 *
 * @param machine   the default machine type, like {@code pc-i440fx-7.2}
 * @param loaders   the paths of the firmware loaders libvirt offers
 * @param cpuModes  the supported CPU modes ({@code host-model}, {@code host-passthrough}, {@code custom})
 * @param cpuModels the named CPU models, each with whether it is usable on this host
 */
public record DomainCapabilities(String machine, List<String> loaders, List<String> cpuModes,
                                 Map<String, Boolean> cpuModels) {
    /** libvirt's domain capabilities document is a few tens of kilobytes. */
    private static final int MAXIMUM_CHARACTERS = 1 << 20;

    /** Copies the collections. */
    public DomainCapabilities {
        loaders = List.copyOf(loaders);
        cpuModes = List.copyOf(cpuModes);
        cpuModels = Collections.unmodifiableMap(new LinkedHashMap<>(cpuModels));
    }

    /**
     * Reads libvirt's domain capabilities XML.
     *
     * @throws IllegalArgumentException when it is not a domain capabilities document
     */
    public static DomainCapabilities parse(String xml) {
        if (xml.length() > MAXIMUM_CHARACTERS) {
            throw new IllegalArgumentException("libvirt's domain capabilities are " + xml.length()
                    + " characters long, more than the " + MAXIMUM_CHARACTERS + " read");
        }
        Document document = XmlDocuments.parse(xml);
        Element root = document.getDocumentElement();
        if (!root.getTagName().equals("domainCapabilities")) {
            throw new IllegalArgumentException("libvirt's domain capabilities have the root <" + root.getTagName()
                    + ">, not <domainCapabilities>");
        }
        String machine = child(root, "machine").map(Element::getTextContent).map(String::strip).orElse("");
        List<String> loaders = new ArrayList<>();
        child(root, "os").flatMap(os -> child(os, "loader")).ifPresent(loader -> {
            for (Element value : children(loader, "value")) {
                loaders.add(value.getTextContent().strip());
            }
        });
        List<String> cpuModes = new ArrayList<>();
        Map<String, Boolean> cpuModels = new LinkedHashMap<>();
        child(root, "cpu").ifPresent(cpu -> {
            for (Element mode : children(cpu, "mode")) {
                if (!"yes".equals(mode.getAttribute("supported"))) {
                    continue;
                }
                cpuModes.add(mode.getAttribute("name"));
                if (mode.getAttribute("name").equals("custom")) {
                    for (Element model : children(mode, "model")) {
                        cpuModels.put(model.getTextContent().strip(), !"no".equals(model.getAttribute("usable")));
                    }
                }
            }
        });
        return new DomainCapabilities(machine, loaders, cpuModes, cpuModels);
    }

    private static Optional<Element> child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element element && element.getTagName().equals(name)) {
                found.add(element);
            }
        }
        return found;
    }
}

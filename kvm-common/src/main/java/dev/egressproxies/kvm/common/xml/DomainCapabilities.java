package dev.egressproxies.kvm.common.xml;

import static dev.egressproxies.kvm.common.xml.XmlDocuments.children;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.w3c.dom.Element;

/**
 * What a host offers for domains of one type, read from libvirt's domain capabilities
 * ({@code virsh domcapabilities --virttype TYPE}).
 */
public record DomainCapabilities(String machine, List<String> loaders, List<String> cpuModes,
                                 Map<String, Boolean> cpuModels) {
    /** The document is a few tens of kilobytes. */
    private static final int MAXIMUM_CHARACTERS = 1 << 20;

    /** Copies the collections. */
    public DomainCapabilities {
        loaders = List.copyOf(loaders);
        cpuModes = List.copyOf(cpuModes);
        cpuModels = Collections.unmodifiableMap(new LinkedHashMap<>(cpuModels));
    }

    /** Reads libvirt's domain capabilities XML; IllegalArgumentException when it is something else. */
    public static DomainCapabilities parse(String xml) {
        if (xml.length() > MAXIMUM_CHARACTERS) {
            throw new IllegalArgumentException("libvirt's domain capabilities are " + xml.length()
                    + " characters long, more than the " + MAXIMUM_CHARACTERS + " read");
        }
        Element root = XmlDocuments.parse(xml).getDocumentElement();
        if (!root.getTagName().equals("domainCapabilities")) {
            throw new IllegalArgumentException("libvirt's domain capabilities have the root <" + root.getTagName()
                    + ">, not <domainCapabilities>");
        }
        String machine = first(root, "machine").map(element -> element.getTextContent().strip()).findFirst().orElse("");
        List<String> loaders = first(root, "os").flatMap(os -> first(os, "loader"))
                .flatMap(loader -> children(loader, "value").stream())
                .map(value -> value.getTextContent().strip()).toList();
        List<String> cpuModes = new ArrayList<>();
        Map<String, Boolean> cpuModels = new LinkedHashMap<>();
        first(root, "cpu").flatMap(cpu -> children(cpu, "mode").stream())
                .filter(mode -> "yes".equals(mode.getAttribute("supported")))
                .forEach(mode -> {
                    cpuModes.add(mode.getAttribute("name"));
                    if (mode.getAttribute("name").equals("custom")) {
                        for (Element model : children(mode, "model")) {
                            cpuModels.put(model.getTextContent().strip(), !"no".equals(model.getAttribute("usable")));
                        }
                    }
                });
        return new DomainCapabilities(machine, loaders, cpuModes, cpuModels);
    }

    private static Stream<Element> first(Element parent, String name) {
        return children(parent, name).stream().limit(1);
    }
}

/* The counterparty graph of the console's entity, alert and case pages: fetched from the API
   (GET /v1/onboarding/entities/{id}/counterparty-graph, with the console's session cookie) and drawn
   with Cytoscape.js, served by the app itself (console/package.json). Without Cytoscape.js the table alone. */
(function () {
  "use strict";
  var COLOURS = {subject: "#1e3a8a", customer: "#15803d", address: "#6b7280", tagged: "#c2410c", sanctioned: "#b91c1c",
                 alerted: "#a21caf", highlighted: "#7c3aed", edge: "#9ca3af"};

  function weight(amount, low, high) {
    var value = Math.log10(1 + parseFloat(amount || "0"));
    return low + Math.min(value / 7, 1) * (high - low);  // up to 10 million USD
  }

  function colour(node) {
    if (node.sanctioned) return COLOURS.sanctioned;
    if (node.tags.length) return COLOURS.tagged;
    return COLOURS[node.kind];
  }

  function marks(node) {
    var out = [];
    if (node.sanctioned) out.push("sanctioned (" + node.sanctioned + ")");
    if (node.tags.length) out.push(node.tags.join(", "));
    if (node.open_alerts) out.push(node.open_alerts + " open alert" + (node.open_alerts > 1 ? "s" : ""));
    if (node.highlighted) out.push("highlighted");
    return out.join("; ");
  }

  function link(section, node) {
    if (node.kind === "subject") return null;
    if (node.entity_id) return section.dataset.entityUrl.replace("00000000-0000-0000-0000-000000000000", node.entity_id);
    return section.dataset.addressUrl + "?queue=all&q=" + encodeURIComponent(node.address);
  }

  function cutText(graph) {
    var cut = graph.cut, text = cut.counterparties_shown + " of " + cut.counterparties_total + " counterparties";
    if (graph.hops === 2) text += ", " + cut.second_hop_shown + " of " + cut.second_hop_total + " at two hops";
    text += " (" + cut.edges_shown + " of " + cut.edges_total + " links), over " + graph.days + " days";
    if (cut.truncated) text += ": cut to the largest by USD amount";
    if (graph.highlighted_transfers) text += "; " + graph.highlighted_transfers + " highlighted transfer" + (graph.highlighted_transfers > 1 ? "s" : "");
    return text + ".";
  }

  function fillTable(section, graph) {
    var body = section.querySelector(".graph-table tbody");
    body.textContent = "";
    graph.nodes.forEach(function (node) {
      if (node.kind === "subject") return;
      var row = body.insertRow(), cell = row.insertCell(), href = link(section, node), anchor = document.createElement("a");
      anchor.href = href; anchor.textContent = node.label; anchor.title = node.address || node.label;
      cell.appendChild(anchor);
      [node.hop, node.kind, node.amount_usd, node.transfer_count, marks(node) || "—"].forEach(function (value) {
        row.insertCell().textContent = value;
      });
    });
  }

  function draw(section, graph) {
    var canvas = section.querySelector(".graph-canvas");
    if (typeof window.cytoscape !== "function") {
      canvas.textContent = "The graph library is not installed (scripts/npm-deps console): the table below lists the counterparties.";
      section.querySelector(".graph-table").open = true;
      return;
    }
    var elements = graph.nodes.map(function (node) {
      return {data: {id: node.id, label: node.label, hop: node.hop, colour: colour(node), size: node.kind === "subject" ? 44 : weight(node.amount_usd, 16, 40),
                     href: link(section, node), alerted: node.open_alerts > 0 && node.kind !== "subject" ? "yes" : "no",
                     highlighted: node.highlighted ? "yes" : "no"}};
    }).concat(graph.edges.map(function (edge, index) {
      return {data: {id: "e" + index, source: edge.source, target: edge.target, width: weight(edge.amount_usd, 1, 9),
                     highlighted: edge.highlighted ? "yes" : "no", label: "$" + edge.amount_usd + " · " + edge.transfer_count}};
    }));
    var cy = window.cytoscape({
      container: canvas, elements: elements, wheelSensitivity: 0.3,
      // Rings by hop first; with a second hop, a force-directed pass from there groups each
      // counterparty's own counterparties around it.
      layout: {name: "concentric", concentric: function (n) { return 3 - n.data("hop"); }, levelWidth: function () { return 1; },
               minNodeSpacing: 18, animate: false},
      style: [
        {selector: "node", style: {"background-color": "data(colour)", "width": "data(size)", "height": "data(size)", "label": "data(label)",
                                   "font-size": 10, "color": "#111827", "text-valign": "bottom", "text-margin-y": 3}},
        {selector: "node[alerted = 'yes']", style: {"border-width": 4, "border-color": COLOURS.alerted}},
        {selector: "node[highlighted = 'yes']", style: {"border-width": 4, "border-color": COLOURS.highlighted, "border-style": "double"}},
        {selector: "edge", style: {"width": "data(width)", "line-color": COLOURS.edge, "target-arrow-color": COLOURS.edge,
                                   "target-arrow-shape": "triangle", "curve-style": "bezier", "opacity": 0.8}},
        {selector: "edge[highlighted = 'yes']", style: {"line-color": COLOURS.highlighted, "target-arrow-color": COLOURS.highlighted, "opacity": 1,
                                                        "z-index": 10}},
        {selector: "edge:selected, edge.hover", style: {"label": "data(label)", "font-size": 9, "text-background-color": "#fff",
                                                        "text-background-opacity": 1}}
      ]
    });
    cy.on("tap", "node", function (event) {
      var href = event.target.data("href");
      if (href) window.location.assign(href);
    });
    cy.on("mouseover", "edge", function (event) { event.target.addClass("hover"); });
    cy.on("mouseout", "edge", function (event) { event.target.removeClass("hover"); });
    section.cy = cy;  // the browser tests read the drawn graph through it
    if (graph.nodes.some(function (node) { return node.hop === 2; })) {
      cy.layout({name: "cose", animate: false, randomize: false, fit: true, padding: 20, idealEdgeLength: function () { return 70; },
                 nodeRepulsion: function () { return 60000; }}).run();
    }
  }

  function load(section) {
    var status = section.querySelector(".graph-cut"), query = new URLSearchParams();
    section.querySelectorAll(".graph-controls select").forEach(function (select) { query.set(select.dataset.param, select.value); });
    if (section.dataset.highlight) {
      var pair = section.dataset.highlight.split("=");
      query.set(pair[0], pair[1]);
    }
    status.textContent = "Loading…";
    section.dataset.state = "loading";
    fetch(section.dataset.endpoint + "?" + query.toString(), {
      credentials: "same-origin", headers: {"Accept": "application/json", "X-Organization": section.dataset.organization, "X-Mode": section.dataset.mode}
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
        return body;
      });
    }).then(function (graph) {
      if (section.cy) section.cy.destroy();
      section.querySelector(".graph-canvas").textContent = "";
      status.textContent = cutText(graph);
      fillTable(section, graph);
      draw(section, graph);
      section.dataset.state = "ready";
    }).catch(function (error) {
      status.textContent = "The graph could not be loaded: " + error.message;
      section.dataset.state = "failed";
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".counterparty-graph").forEach(function (section) {
      section.querySelectorAll("select").forEach(function (select) { select.addEventListener("change", function () { load(section); }); });
      load(section);
    });
  });
})();

// Keep the clause anchor when switching between the Simplified and Traditional editions.
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a.kb-switch-link");
  if (link && window.location.hash) {
    link.href = link.href.split("#")[0] + window.location.hash;
  }
});

// The stemmer that Sphinx's Chinese language_data.js names but does not define (see conf.py).
// It stems a search word as sphinx.search.zh does: the English stemmer on lower case, so Latin
// words match the index; Chinese words pass unchanged.
if (typeof window.ChineseStemmer === "undefined") {
  window.ChineseStemmer = function () {
    let english = null;
    this.stemWord = function (word) {
      if (english === null) english = new EnglishStemmer();
      return english.stemWord(word.toLowerCase());
    };
  };
}
